/**
 * What the fake upstream answers, shared with the load client so it can check
 * that every streamed event arrived unchanged. Everything is deterministic
 * (fixed ids, fixed `created`), so direct, reference and gateway receive the
 * same bytes from the upstream.
 */

/** Content chunks per stream (the "SSE streams of 50 chunks"). */
export const STREAM_CHUNKS = 50;

/** The text of chunk i: a short token, padded so each chat chunk is ~105-160 bytes on the wire. */
export const chunkText = (i) => `tok${String(i).padStart(2, '0')} `;

/** Everything the streams say, concatenated. */
export const STREAM_TEXT = Array.from({ length: STREAM_CHUNKS }, (_, i) => chunkText(i)).join('');

/** ~900 characters of prose for non-streaming answers (a ~1.1 KB completion on the wire). */
export const ANSWER_TEXT =
  'The gateway forwards this answer unchanged. '.repeat(20).trim();

export const UPSTREAM_MODEL_NAME = 'bench-upstream-model';

/**
 * How many SSE events a passthrough stream carries.
 * chat: role chunk + 50 content chunks + finish chunk (+ usage chunk) + [DONE].
 * messages: message_start + content_block_start + 50 deltas + content_block_stop + message_delta + message_stop.
 */
export function expectedEvents(kind, includeUsage) {
  if (kind === 'chat') return 1 + STREAM_CHUNKS + 1 + (includeUsage ? 1 : 0) + 1;
  if (kind === 'messages') return STREAM_CHUNKS + 5;
  throw new Error(`unknown stream kind ${kind}`);
}
