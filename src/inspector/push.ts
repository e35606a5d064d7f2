/**
 * Server-Sent Events to the open inspector pages. Nothing is built or written unless
 * a page is connected (`watching`), so an unwatched gateway pays nothing for them.
 */
import type { ServerResponse } from 'node:http';
import type { PushEvent } from './shared/types.js';

/** A comment line now and then keeps proxies and idle timers from closing a quiet stream. */
const HEARTBEAT_MS = 20_000;

export interface PushHub {
  readonly watching: boolean;
  /** performance.now() when the last page went away (-Infinity: none has yet). */
  readonly lastLeftAt: number;
  /** Takes over the response as an event stream until the page goes away. */
  attach(res: ServerResponse, headers: Record<string, string>): void;
  send(event: PushEvent): void;
  close(): void;
}

export function createPushHub(): PushHub {
  const clients = new Set<ServerResponse>();
  let heartbeat: NodeJS.Timeout | undefined;
  let lastLeftAt = -Infinity;

  const write = (res: ServerResponse, event: PushEvent) => res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);

  return {
    get watching() {
      return clients.size > 0;
    },
    get lastLeftAt() {
      return lastLeftAt;
    },
    attach(res, headers) {
      res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
      clients.add(res);
      write(res, { type: 'hello' });
      res.once('close', () => {
        clients.delete(res);
        lastLeftAt = performance.now();
        if (clients.size === 0 && heartbeat) {
          clearInterval(heartbeat);
          heartbeat = undefined;
        }
      });
      heartbeat ??= setInterval(() => {
        for (const c of clients) c.write(': ping\n\n');
      }, HEARTBEAT_MS).unref();
    },
    send(event) {
      for (const c of clients) write(c, event);
    },
    close() {
      for (const c of clients) c.end();
      clients.clear();
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = undefined;
    },
  };
}
