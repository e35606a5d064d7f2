/** Writing responses: JSON bodies, rendered errors, and the chunks of relayed streams. */
import type { ServerResponse } from 'node:http';
import type { RequestRecord } from '../log/record.js';
import { answerBody, answerHead } from '../pipeline/events.js';

/** Headers every relayed stream gets: no caching, and no buffering by a proxy in between. */
export const STREAM_HEADERS = { 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } as const;

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  record?: RequestRecord,
): void {
  const text = JSON.stringify(body);
  const all = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers };
  if (record) {
    answerHead(record, status, all);
    answerBody(record, text);
  }
  res.writeHead(status, all);
  res.end(text);
}

/**
 * Writes a relayed chunk and sends it at once; returns whether the client keeps up (false: pause the
 * source until `whenDrained`). A plain `res.write` corks the socket until the next tick, to join the
 * writes of one turn into one packet. The relays write once per upstream chunk and then do their
 * bookkeeping (usage, capture), which would hold each chunk back until it is done. Here the socket is
 * corked around the write and uncorked at once, so the chunk and its chunked-encoding frame leave in one
 * socket write before the bookkeeping.
 *
 * The socket's cork, not the response's (`res.cork()` and `res.uncork()`): on Node 22 and later a chunked
 * write under the response's cork waits in the response, leaves as four socket writes at `uncork`, and is
 * answered true however much the socket holds, with no 'drain' after (nodejs/node#60432), so a client that reads
 * nothing would make the gateway read a whole upstream stream into memory. The answer here comes
 * from what the response holds, whatever `write` says.
 */
export function writeNow(res: ServerResponse, chunk: Buffer | string): boolean {
  const socket = res.socket;
  // Corked here rather than by `write`, which would also queue a tick to uncork it, once per chunk, for nothing.
  socket?.cork();
  res.write(chunk);
  socket?.uncork();
  return res.writableLength < res.writableHighWaterMark;
}

/**
 * Calls `then` once the client has taken what `writeNow` left waiting: on the socket's 'drain', since
 * the response passes one on only after a `write` of its own that answered false, which `writeNow` does
 * not rely on. A response queued behind another on its connection has no socket yet: its own 'drain'.
 */
export function whenDrained(res: ServerResponse, then: () => void): void {
  const socket = res.socket;
  if (!socket) {
    res.once('drain', then);
    return;
  }
  // A kept-alive socket outlives the response: the listener goes with the response.
  const gone = () => socket.off('drain', drained);
  const drained = () => {
    res.off('close', gone);
    then();
  };
  socket.once('drain', drained);
  res.once('close', gone);
}

/** Relays a chunk with `writeNow` and, when the client falls behind, pauses `source` until it has caught up. */
export function writeOrPause(res: ServerResponse, chunk: Buffer | string, source: { pause(): unknown; resume(): unknown }): void {
  if (writeNow(res, chunk)) return;
  source.pause();
  whenDrained(res, () => source.resume());
}

/**
 * After an answer that refuses the rest of an upload (413), close the
 * connection once the answer is out rather than reading what is left.
 */
export function closeAfterResponse(res: ServerResponse): void {
  res.once('finish', () => {
    const socket = res.socket;
    if (!socket) return;
    socket.end();
    setTimeout(() => socket.destroy(), 2000).unref();
  });
}
