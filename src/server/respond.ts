/** Writing responses: JSON bodies, rendered errors, and the chunks of relayed streams. */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { capture } from '../log/exchange.js';
import type { RequestRecord } from '../log/record.js';

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
  if (record) captureResponse(record, status, all, text);
  res.writeHead(status, all);
  res.end(text);
}

/**
 * Writes a relayed chunk and sends it at once; returns what `res.write` does (false: wait for
 * 'drain'). A plain `res.write` corks the socket until the next tick, to join the writes of one
 * turn into one packet. The relays write once per upstream chunk and then do their bookkeeping
 * (usage, capture), which held each chunk back until it was done: a serial stream's first byte by
 * 10 µs on these VMs. Corked here, `write` leaves the socket as it is and `uncork` sends.
 */
export function writeNow(res: ServerResponse, chunk: Buffer | string): boolean {
  res.cork();
  const ok = res.write(chunk);
  res.uncork();
  return ok;
}

/** Notes the answer's head (and, for a whole answer, its body) in the exchange, when one is captured. */
export function captureResponse(record: RequestRecord, status: number, headers: OutgoingHttpHeaders, body?: Buffer | string): void {
  const x = record.exchange;
  if (!x) return;
  x.responseStatus = status;
  x.responseHeaders = headers;
  if (body !== undefined) capture(x, x.response, performance.now() - record.start, body);
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
