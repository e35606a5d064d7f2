/**
 * What the whole gateway carries at once, across config reloads: model requests in
 * progress, and bytes of request bodies and of upstream answers read whole. Past the server's caps a request is answered
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

/**
 * A request's share of the buffered-bytes budget: takes as its body's bytes arrive, and as an
 * upstream answer read whole arrives; gives all back at the end.
 */
export interface ByteBudget {
  /** Request-body bytes; past the budget the rest of the upload is not read. */
  take(bytes: number): void;
  /** Bytes of an upstream answer read whole; past the budget the call fails. */
  holdAnswer(bytes: number): void;
  giveBack(): void;
}

export function byteBudget(load: ServerLoad, server: ServerConfig): ByteBudget {
  let held = 0;
  const add = (bytes: number, extra?: Record<string, string>) => {
    if (load.bufferedBytes + bytes > server.maxBufferedBytes) {
      throw overloaded(`The gateway is holding its maximum of ${server.maxBufferedBytes} bytes of request and answer bodies; retry shortly.`, extra);
    }
    load.bufferedBytes += bytes;
    held += bytes;
  };
  return {
    // The rest of the upload is not read, so the connection cannot be reused.
    take: (bytes) => add(bytes, { connection: 'close' }),
    holdAnswer: (bytes) => add(bytes),
    giveBack() {
      load.bufferedBytes -= held;
      held = 0;
    },
  };
}
