/**
 * Server-Sent Events to the open inspector pages. Nothing is built or written unless
 * a page is connected (`watching`), so an unwatched gateway pays nothing for them.
 */
import type { ServerResponse } from 'node:http';
import { commentFrame, eventFrame } from '../sse/format.js';
import type { PushEvent } from './common/types.js';

/** A comment line now and then keeps proxies and idle timers from closing a quiet stream. */
const HEARTBEAT_MS = 20_000;
const PING = commentFrame('ping');

/** What a page may leave unread (`--inspector-stream-buffer`): about a thousand rows. */
export const DEFAULT_STREAM_BUFFER_BYTES = 1024 * 1024;

export interface PushOptions {
  /**
   * Bytes of events a page may leave unread before its stream is cut. A page that stops reading would
   * otherwise hold a growing buffer for as long as traffic flows; cut, its EventSource reconnects and
   * fetches the list again.
   */
  readonly maxBufferedBytes?: number;
  /** How often the heartbeat goes out, and each stream's `allowed` is asked again. */
  readonly heartbeatMs?: number;
}

export interface PushHub {
  readonly watching: boolean;
  /** performance.now() when the last page went away (-Infinity: none has yet). */
  readonly lastLeftAt: number;
  /**
   * Takes over the response as an event stream until the page goes away, or until `allowed`
   * (asked at each heartbeat) says its viewer may no longer watch.
   */
  attach(res: ServerResponse, headers: Record<string, string>, allowed?: () => boolean): void;
  send(event: PushEvent): void;
  close(): void;
}

export function createPushHub(options: PushOptions = {}): PushHub {
  const maxBuffered = options.maxBufferedBytes ?? DEFAULT_STREAM_BUFFER_BYTES;
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const clients = new Map<ServerResponse, () => boolean>();
  let heartbeat: NodeJS.Timeout | undefined;
  let lastLeftAt = -Infinity;

  // writableLength counts what waits in the response and in its socket: what the page has not taken.
  // Past the bound the stream is destroyed, not ended: an end would queue behind the unread bytes.
  // Looked at before writing, so one event larger than the bound does not cut a page that reads.
  const put = (res: ServerResponse, text: string) => {
    if (res.writableLength > maxBuffered) res.destroy();
    else res.write(text);
  };
  const write = (res: ServerResponse, event: PushEvent) => put(res, eventFrame(event.type, event));

  return {
    get watching() {
      return clients.size > 0;
    },
    get lastLeftAt() {
      return lastLeftAt;
    },
    attach(res, headers, allowed = () => true) {
      res.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
      clients.set(res, allowed);
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
        for (const [c, ok] of clients) {
          if (ok()) put(c, PING);
          else c.end();
        }
      }, heartbeatMs).unref();
    },
    send(event) {
      if (clients.size === 0) return;
      // One frame for every page: made once, not per page.
      const frame = eventFrame(event.type, event);
      for (const c of clients.keys()) put(c, frame);
    },
    close() {
      for (const c of clients.keys()) c.end();
      clients.clear();
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = undefined;
    },
  };
}
