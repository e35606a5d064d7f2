/**
 * What every step of a request is served with: the state of the config
 * generation it started under and the gateway-wide dependencies.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthThrottle } from '../auth/throttle.js';
import type { Config } from '../config/types.js';
import type { LimitStore } from '../limits/limit-store.js';
import type { Logger } from '../log/logger.js';
import type { RequestRecord } from '../log/record.js';
import type { Provider } from '../providers/types.js';
import type { ServerLoad } from '../server/load.js';

/** What a request is served with. Replaced as a whole on reload, so a request keeps the state it started with. */
export interface GatewayState {
  readonly config: Config;
  readonly providers: ReadonlyMap<string, Provider>;
}

/** Told of every request as it starts and when it ends (the inspector is one). */
export interface RequestObserver {
  requestStarted?(record: RequestRecord): void;
  requestEnded(record: RequestRecord): void;
}

/** Pages served beside the API on the same port (the inspector), by path prefix. Their requests are not logged. */
export interface Mount {
  readonly prefix: string;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

export interface HandlerDeps {
  readonly logger: Logger;
  readonly version: string;
  /** Epoch ms the gateway started (the `created` of listed models). */
  readonly startedAt: number;
  /**
   * Bytes of bodies to capture for the request starting now; 0 captures nothing (nobody will
   * look). Asked per request: the inspector captures only while a page is watching.
   */
  readonly captureLimit: () => number;
  readonly observers: readonly RequestObserver[];
  readonly mounts: readonly Mount[];
  /** Per-key-group limits, shared by every config generation. */
  readonly limits: LimitStore;
  /** What the whole gateway carries, shared by every config generation. */
  readonly load: ServerLoad;
  /** Failed authentications per client address, shared by every config generation. */
  readonly authFailures: AuthThrottle;
  /** Where the server listens, once it does: on a loopback address, Host must name this machine. */
  readonly listening: { loopback: boolean };
}
