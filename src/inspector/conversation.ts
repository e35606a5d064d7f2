/**
 * An exchange as a conversation, for the page's default view: the client's request and the answer
 * it received, read with the gateway's own codecs (`protocols/<p>/codec/`) into the intermediate
 * form, whatever the caller's protocol, a streamed answer folded into its parts. Built on the server
 * when an exchange is opened: the page then needs no codec of its own, and one renderer serves all
 * four protocols. What the codecs cannot read is said, and the raw view still has it.
 */
import type { BodyJson, ExchangeJson, StreamEventJson } from '../log/exchange-json.js';
import { protocolEndpointAt } from '../protocols/endpoints.js';
import { isObject, str, type Json } from '../protocols/json.js';
import type { Protocol } from '../protocols/types.js';
import { codecs } from '../translate/codecs.js';
import { answerContext } from '../translate/context.js';
import type * as Ir from '../translate/ir.js';
import type { Conversation, ConversationAnswer } from './common/types.js';

/** Decoders invent ids and times only for what they make up; the view shows neither. */
const readingContext = (protocol: Protocol, model: string, stream: boolean): Ir.TranslateContext => ({
  ...answerContext(protocol, model, { now: () => 0, newId: (prefix) => prefix }),
  stream,
});

/** The conversation of a create request; undefined for other endpoints (models, count_tokens, health). */
export function conversationOf(x: ExchangeJson): Conversation | undefined {
  const endpoint = protocolEndpointAt(x.path.split('?', 1)[0]!);
  if (endpoint?.operation !== 'create' || !x.request) return undefined;
  const { protocol } = endpoint;
  const model = typeof endpoint.params.model === 'string' ? endpoint.params.model : (x.model ?? '');
  const stream = endpoint.stream || x.stream === true;
  const out: { -readonly [K in keyof Conversation]: Conversation[K] } = { protocol, system: [], messages: [], tools: [] };
  const body = x.request.body;
  if (body.json === undefined) {
    out.unreadable = body.truncated ? 'the request was cut at the capture limit' : 'the request is not JSON';
  } else {
    try {
      const request = codecs[protocol].decodeRequest(body.json as Json, readingContext(protocol, model, stream));
      out.system = request.system.map((p) => p.text);
      out.messages = request.messages;
      out.tools = request.tools.map((t) => (t.namespace ? `${t.namespace}.${t.name}` : t.name));
    } catch (err) {
      out.unreadable = `the ${protocol} request could not be read: ${(err as Error).message}`;
    }
  }
  const answer = x.response ? answerOf(protocol, x.response.body, x.response.status) : undefined;
  return answer ? { ...out, answer } : out;
}

/** An error body's message (OpenAI, Anthropic and Gemini all nest it under `error`). */
function errorOf(json: unknown): string | undefined {
  if (!isObject(json) || !isObject(json.error)) return undefined;
  const type = str(json.error.type) ?? str(json.error.status) ?? str(json.error.code);
  const message = str(json.error.message) ?? '';
  return type ? `${type}: ${message}` : message;
}

function answerOf(protocol: Protocol, body: BodyJson, status: number | undefined): ConversationAnswer | undefined {
  if (body.events) return foldStream(protocol, body.events, body.truncated === true);
  if (body.bytes === 0) return undefined;
  const error = errorOf(body.json);
  if (error !== undefined || (status !== undefined && status >= 400) || !isObject(body.json)) {
    return { streamed: false, content: [], error: error ?? body.text ?? `HTTP ${status ?? '?'}` };
  }
  try {
    const res = codecs[protocol].decodeResponse(body.json as Json, readingContext(protocol, '', false));
    return { streamed: false, content: res.content, stopReason: res.stopReason, usage: res.usage };
  } catch (err) {
    return { streamed: false, content: [], error: `the ${protocol} answer could not be read: ${(err as Error).message}` };
  }
}

type Part =
  | { type: 'text' | 'refusal'; text: string }
  | { type: 'reasoning'; text: string; redacted?: string }
  | { type: 'tool_call'; id: string; name: string; kind: Ir.ToolKind; arguments: string; namespace?: string };

/**
 * The stream's parts as the codec decodes them, in the order their blocks started. Lenient, unlike
 * translation's own fold: a stream cut short or out of order still shows what came.
 */
function foldStream(protocol: Protocol, events: readonly StreamEventJson[], truncated: boolean): ConversationAnswer {
  const decoder = codecs[protocol].decodeStream(readingContext(protocol, '', true));
  const content: Part[] = [];
  const byIndex = new Map<number, Part>();
  let stopReason: Ir.StopReason | undefined;
  let usage: Ir.Usage | undefined;
  let error: string | undefined;
  const take = (ev: Ir.StreamEvent) => {
    switch (ev.type) {
      case 'start':
      case 'block_stop':
        return;
      case 'block_start': {
        const b = ev.block;
        const part: Part =
          b.type === 'tool_call'
            ? { type: 'tool_call', id: b.id, name: b.name, kind: b.kind, arguments: '', ...(b.namespace !== undefined ? { namespace: b.namespace } : {}) }
            : b.type === 'reasoning'
              ? { type: 'reasoning', text: '', ...(b.redacted !== undefined ? { redacted: b.redacted } : {}) }
              : { type: b.type, text: '' };
        content.push(part);
        byIndex.set(ev.index, part);
        return;
      }
      case 'block_delta': {
        const part = byIndex.get(ev.index);
        const d = ev.delta;
        if (!part) return;
        if ((d.type === 'text' || d.type === 'refusal' || d.type === 'reasoning' || d.type === 'reasoning_summary') && part.type !== 'tool_call') part.text += d.text;
        else if (d.type === 'arguments' && part.type === 'tool_call') part.arguments += d.text;
        return;
      }
      case 'finish':
        stopReason = ev.stopReason;
        usage = ev.usage;
        return;
      case 'error':
        error ??= ev.errorType ? `${ev.errorType}: ${ev.message}` : ev.message;
        return;
    }
  };
  try {
    for (const e of events) for (const ev of decoder.push({ event: e.event, data: typeof e.data === 'string' ? e.data : JSON.stringify(e.data) })) take(ev);
    for (const ev of decoder.end()) take(ev);
  } catch (err) {
    error ??= `the ${protocol} stream could not be read past here: ${(err as Error).message}`;
  }
  if (truncated) error ??= 'the stream was cut at the capture limit';
  return {
    streamed: true,
    events: events.length,
    content,
    ...(stopReason !== undefined ? { stopReason } : {}),
    ...(usage !== undefined ? { usage } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}
