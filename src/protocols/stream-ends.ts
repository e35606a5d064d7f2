/**
 * How a stream ends, per protocol: the event types after which nothing more is owed.
 * The passthrough watchers (`<p>/usage.ts`), the translators' stream decoders and
 * replay's summary each follow streams their own way (the watchers must stay cheap),
 * so they agree through this table, and `stream-ends.test.ts` checks all of them
 * against it at every cut point of the stream fixtures. An event's type is its
 * `event:` name, else its data's `type`; Chat's end is the data `[DONE]`; Gemini's events
 * are all unnamed, untyped answers, typed here by what they hold (`eventTypeOf`).
 * Imported by the inspector page too: no node built-ins here.
 * @see docs/protocols.md, "How a stream ends"
 */
import { isObject, type Json } from './json.js';
import type { Protocol } from './types.js';

export interface StreamEnds {
  /** The protocol's proper end. */
  readonly proper: readonly string[];
  /** An error the stream carries in-band: it ends the stream too, but not properly. */
  readonly error: readonly string[];
}

export const STREAM_ENDS = {
  // Chat has no end event: `[DONE]` is data. A chunk with a `finish_reason` also ends it for the
  // watcher and the decoder, as some servers send no `[DONE]`; replay's `ended` wants `[DONE]`.
  chat: { proper: ['[DONE]'], error: ['error'] },
  responses: { proper: ['response.completed', 'response.incomplete'], error: ['response.failed', 'error'] },
  messages: { proper: ['message_stop'], error: ['error'] },
  // Gemini has no end event: the chunk whose candidate has a `finishReason` is the last, as is a
  // prompt refused outright (`promptFeedback.blockReason` and no candidate). See `geminiEventType`.
  gemini: { proper: ['finish', 'blocked'], error: ['error'] },
} as const satisfies Record<Protocol, StreamEnds>;

/**
 * The type of a Gemini stream chunk (a `GenerateContentResponse`, or Google's `{"error": …}`):
 * `error`, `finish` (a candidate has a `finishReason`), `blocked` (the prompt was refused), else
 * `chunk`. Google's JSON takes snake_case names too.
 */
export function geminiEventType(chunk: Json): string {
  if (chunk.error !== undefined && chunk.error !== null) return 'error';
  const candidates = chunk.candidates;
  if (Array.isArray(candidates)) {
    for (const c of candidates) {
      if (!isObject(c)) continue;
      const reason = c.finishReason ?? c.finish_reason;
      if (typeof reason === 'string' && reason !== '' && reason !== 'FINISH_REASON_UNSPECIFIED') return 'finish';
    }
  }
  const feedback = chunk.promptFeedback ?? chunk.prompt_feedback;
  if ((!Array.isArray(candidates) || candidates.length === 0) && isObject(feedback)) {
    const reason = feedback.blockReason ?? feedback.block_reason;
    if (typeof reason === 'string' && reason !== '' && reason !== 'BLOCKED_REASON_UNSPECIFIED') return 'blocked';
  }
  return 'chunk';
}

/**
 * An event's type for the table: its `event:` name, else its data's `type` (Gemini's: what the
 * chunk holds), else `error` for an error object, `chunk` for other JSON, or the text itself
 * (Chat's `[DONE]`). `data` is the event's data, parsed where it is JSON.
 */
export function eventTypeOf(protocol: Protocol, event: string | undefined, data: unknown): string {
  if (event !== undefined) return event;
  if (isObject(data)) {
    if (protocol === 'gemini') return geminiEventType(data);
    return typeof data.type === 'string' ? data.type : data.error !== undefined ? 'error' : 'chunk';
  }
  return typeof data === 'string' ? data : 'data';
}

/** Whether an event of `type` ends a `protocol` stream, and how. */
export function streamEndOf(protocol: Protocol, type: string): 'proper' | 'error' | undefined {
  const ends: StreamEnds = STREAM_ENDS[protocol];
  if (ends.proper.includes(type)) return 'proper';
  if (ends.error.includes(type)) return 'error';
  return undefined;
}
