/** Writing complete responses: JSON bodies and rendered errors. */
import type { ServerResponse } from 'node:http';

/** Headers every relayed stream gets: no caching, and no buffering by a proxy in between. */
export const STREAM_HEADERS = { 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } as const;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
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
