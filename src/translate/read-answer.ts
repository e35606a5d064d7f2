/**
 * An answer as it was captured, read with the gateway's own codecs (`protocols/<p>/codec/`) into the
 * intermediate form, whatever its protocol: a whole answer decoded, a streamed one folded into its
 * parts. Lenient, unlike translation's own fold: a stream cut short or out of order still shows what
 * came, and what cannot be read is said. Shared by the inspector's conversation view and the terminal
 * log's `--verbose` detail, so both show a stream as the same answer.
 */
import { isObject, str, type Json } from '../protocols/json.js';
import type { Protocol } from '../protocols/types.js';
import { codecs } from './codecs.js';
import { answerContext } from './context.js';
import type * as Ir from './ir.js';

/** A captured body as the recording holds it (`log/exchange-json.ts`'s `BodyJson` fits). */
export interface CapturedAnswer {
  readonly bytes: number;
  readonly json?: unknown;
  readonly text?: string;
  readonly events?: readonly { readonly event?: string; readonly data: unknown }[];
  readonly truncated?: true;
}

export interface ReadAnswer {
  readonly streamed: boolean;
  /** A stream's events, folded into `content`. */
  readonly events?: number;
  readonly content: readonly Ir.AssistantPart[];
  readonly stopReason?: Ir.StopReason;
  readonly usage?: Ir.Usage;
  /** An error answer, an error in the stream, or why the answer could not be read (wholly or past a point). */
  readonly error?: string;
}

/** Decoders invent ids and times only for what they make up; a reader shows neither. */
export const readingContext = (protocol: Protocol, model: string, stream: boolean): Ir.TranslateContext => ({
  ...answerContext(protocol, model, { now: () => 0, newId: (prefix) => prefix }),
  stream,
});

/** An error body's message (OpenAI, Anthropic and Gemini all nest it under `error`). */
function errorOf(json: unknown): string | undefined {
  if (!isObject(json) || !isObject(json.error)) return undefined;
  const type = str(json.error.type) ?? str(json.error.status) ?? str(json.error.code);
  const message = str(json.error.message) ?? '';
  return type ? `${type}: ${message}` : message;
}

/** The answer in `body`, spoken in `protocol`; undefined when nothing was captured. */
export function readAnswer(protocol: Protocol, body: CapturedAnswer, status: number | undefined): ReadAnswer | undefined {
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

/** The stream's parts as the codec decodes them, in the order their blocks started. */
function foldStream(protocol: Protocol, events: NonNullable<CapturedAnswer['events']>, truncated: boolean): ReadAnswer {
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
