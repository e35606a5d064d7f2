/**
 * What the whole gateway carries at once, across config reloads: model requests in
 * progress and request-body bytes held. Past the server's caps a request is answered
 * 503 with retry-after at once, so a flood degrades into refusals instead of memory.
 */
import type { ServerConfig } from '../config/types.js';
import { GatewayError } from '../errors.js';

export interface ServerLoad {
  active: number;
  bufferedBytes: number;
}

export const newServerLoad = (): ServerLoad => ({ active: 0, bufferedBytes: 0 });

const overloaded = (message: string, extra: Record<string, string> = {}) =>
  new GatewayError('overloaded', message, { headers: { 'retry-after': '1', ...extra } });

/** Counts a model request in; throws 503 when the gateway is at `server.maxConcurrentRequests`. */
export function enter(load: ServerLoad, server: ServerConfig): void {
  if (load.active >= server.maxConcurrentRequests) {
    throw overloaded(`The gateway is serving its maximum of ${server.maxConcurrentRequests} requests at once; retry shortly.`);
  }
  load.active++;
}

/** A request's share of the buffered-bytes budget: takes as body bytes arrive, gives all back at the end. */
export interface ByteBudget {
  take(bytes: number): void;
  giveBack(): void;
}

export function byteBudget(load: ServerLoad, server: ServerConfig): ByteBudget {
  let held = 0;
  return {
    take(bytes) {
      if (load.bufferedBytes + bytes > server.maxBufferedBytes) {
        // The rest of the upload is not read, so the connection cannot be reused.
        throw overloaded(`The gateway is holding its maximum of ${server.maxBufferedBytes} bytes of request bodies; retry shortly.`, {
          connection: 'close',
        });
      }
      load.bufferedBytes += bytes;
      held += bytes;
    },
    giveBack() {
      load.bufferedBytes -= held;
      held = 0;
    },
  };
}
