/**
 * How a stream ends, per protocol: the event types after which nothing more is owed.
 * The passthrough watchers (`<p>/usage.ts`), the translators' stream decoders and
 * replay's summary each follow streams their own way (the watchers must stay cheap),
 * so they agree through this table, and `stream-ends.test.ts` checks all of them
 * against it at every cut point of the stream fixtures. An event's type is its
 * `event:` name, else its data's `type`; Chat's end is the data `[DONE]`.
 * Imported by the inspector page too: no node built-ins here.
 * @see docs/protocols.md, "How a stream ends"
 */
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
} as const satisfies Record<Protocol, StreamEnds>;

/** Whether an event of `type` ends a `protocol` stream, and how. */
export function streamEndOf(protocol: Protocol, type: string): 'proper' | 'error' | undefined {
  const ends: StreamEnds = STREAM_ENDS[protocol];
  if (ends.proper.includes(type)) return 'proper';
  if (ends.error.includes(type)) return 'error';
  return undefined;
}
