/**
 * What an answer said, in terms that can be compared across two runs: text,
 * tool calls, stop reason, error, usage and, for streams, the event types and
 * whether the protocol's end event came. Answers are read with the gateway's own
 * decoders (`protocols/<protocol>/codec/`), so a stream's text is assembled exactly as
 * translation would assemble it.
 */
import type { BodyJson, StreamEventJson } from '../log/exchange-json.js';
import { isObject, str } from '../protocols/json.js';
import { protocolEndpointAt } from '../protocols/endpoints.js';
import { eventTypeOf, streamEndOf } from '../protocols/stream-ends.js';
import type { Protocol } from '../protocols/types.js';
import { codecs } from '../translate/codecs.js';
import type * as Ir from '../translate/ir.js';
import { answerContext } from '../translate/context.js';

export interface ToolCallSummary {
  readonly name: string;
  readonly arguments: string;
}

export interface Summary {
  /** The text blocks' text, joined. */
  readonly text: string;
  readonly toolCalls: readonly ToolCallSummary[];
  /** Normalised across protocols: `end`, `max_tokens`, `tool_calls`, … */
  readonly stopReason?: string;
  /** An error the body was, or the stream carried (`type: message`). */
  readonly error?: string;
  readonly usage?: Ir.Usage;
  /** Streams only: event types in order, and whether the protocol's end event came. */
  readonly eventTypes?: readonly string[];
  readonly ended?: boolean;
}

/** The protocol a create endpoint speaks; other paths (models, count_tokens, health) get no summary. */
export function summarisedProtocol(path: string): Protocol | undefined {
  const endpoint = protocolEndpointAt(path);
  return endpoint?.operation === 'create' ? endpoint.protocol : undefined;
}

/** Decoders only need ids and times for what they invent; the summary ignores both. */
const readingContext = (protocol: Protocol): Ir.TranslateContext => answerContext(protocol, '', { now: () => 0, newId: (prefix) => prefix });

/** A stream event's type: its `event:` name, else its data's `type`, else what Chat sends (`chunk`, `[DONE]`, `error`). */
export function eventType(e: StreamEventJson): string {
  if (e.event !== undefined) return e.event;
  if (isObject(e.data)) return str(e.data.type) ?? (e.data.error !== undefined ? 'error' : 'chunk');
  return typeof e.data === 'string' ? e.data : 'data';
}

/** An error body's `type: message` (OpenAI and Anthropic both nest it under `error`). */
function errorOf(json: unknown): string | undefined {
  if (!isObject(json) || !isObject(json.error)) return undefined;
  const type = str(json.error.type) ?? str(json.error.code);
  const message = str(json.error.message) ?? '';
  return type ? `${type}: ${message}` : message;
}

export function summarise(protocol: Protocol, body: BodyJson, status: number | undefined): Summary {
  if (body.events) return summariseStream(protocol, body.events);
  const error = errorOf(body.json);
  if (error !== undefined || (status !== undefined && status >= 400) || !isObject(body.json)) {
    return { text: '', toolCalls: [], ...(error !== undefined ? { error } : body.text ? { error: body.text } : {}) };
  }
  try {
    const res = codecs[protocol].decodeResponse(body.json, readingContext(protocol));
    let text = '';
    const toolCalls: ToolCallSummary[] = [];
    for (const part of res.content) {
      if (part.type === 'text') text += part.text;
      else if (part.type === 'tool_call') toolCalls.push({ name: part.name, arguments: part.arguments });
    }
    return { text, toolCalls, stopReason: res.stopReason, usage: res.usage };
  } catch (err) {
    return { text: '', toolCalls: [], error: `unreadable ${protocol} response: ${(err as Error).message}` };
  }
}

function summariseStream(protocol: Protocol, events: readonly StreamEventJson[]): Summary {
  const decoder = codecs[protocol].decodeStream(readingContext(protocol));
  const ir: Ir.StreamEvent[] = [];
  let unreadable: string | undefined;
  try {
    for (const e of events) {
      ir.push(...decoder.push({ event: e.event, data: typeof e.data === 'string' ? e.data : JSON.stringify(e.data) }));
    }
    ir.push(...decoder.end());
  } catch (err) {
    unreadable = `unreadable ${protocol} stream: ${(err as Error).message}`;
  }
  let text = '';
  const toolCalls: { name: string; arguments: string }[] = [];
  const calls = new Map<number, { name: string; arguments: string }>();
  let stopReason: string | undefined;
  let usage: Ir.Usage | undefined;
  let error = unreadable;
  for (const ev of ir) {
    if (ev.type === 'block_start' && ev.block.type === 'tool_call') {
      const call = { name: ev.block.name, arguments: '' };
      calls.set(ev.index, call);
      toolCalls.push(call);
    } else if (ev.type === 'block_delta' && ev.delta.type === 'text') {
      text += ev.delta.text;
    } else if (ev.type === 'block_delta' && ev.delta.type === 'arguments') {
      const call = calls.get(ev.index);
      if (call) call.arguments += ev.delta.text;
    } else if (ev.type === 'finish') {
      stopReason = ev.stopReason;
      usage = ev.usage;
    } else if (ev.type === 'error') {
      error ??= ev.errorType ? `${ev.errorType}: ${ev.message}` : ev.message;
    }
  }
  // Gemini's chunks have no type of their own: the table's types them by what they hold.
  const eventTypes = events.map((e) => eventTypeOf(protocol, e.event, e.data));
  return {
    text,
    toolCalls,
    ...(stopReason !== undefined ? { stopReason } : {}),
    ...(error !== undefined ? { error } : {}),
    ...(usage !== undefined ? { usage } : {}),
    eventTypes,
    ended: eventTypes.some((t) => streamEndOf(protocol, t) === 'proper'),
  };
}
