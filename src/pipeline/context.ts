/**
 * What every step of a request is served with: one `RequestContext` per request, holding the
 * state of the config generation it started under, the gateway-wide dependencies, and what the
 * steps took that must be given back when the response closes (the cleanup list).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthThrottle } from '../auth/throttle.js';
import type { BudgetStore, Reservation } from '../budgets/budget-store.js';
import type { Config, GatewayKey, KeyGroupConfig } from '../config/types.js';
import type { Admission, LimitStore } from '../limits/limit-store.js';
import type { JointStore } from '../state/admission.js';
import type { Logger } from '../log/logger.js';
import type { MetricsHooks } from '../metrics/hooks.js';
import type { Tracer } from '../tracing/types.js';
import type { RequestRecord } from '../log/record.js';
import type { CallAbort } from '../providers/abort.js';
import type { Provider } from '../providers/types.js';
import type { ResponsesStore } from '../responses-store/store.js';
import type { ReasoningSeal } from '../translate/common/reasoning-seal.js';
import type { Price } from '../cost/price.js';
import type { Deadline } from './deadlines.js';
import type { CredentialPick } from '../providers/types.js';
import { pathOf } from './endpoints.js';
import { requestStarted, type RecordSource } from './events.js';

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
  /** Seals reasoning that travels through a caller in a form the upstream cannot read (keyed by the install secret). */
  readonly seal: ReasoningSeal;
  /** Translated Responses answers kept for later references, shared by every config generation. */
  readonly responses: ResponsesStore;
  /** Spend against budgets, shared by every config generation. */
  readonly budgets: BudgetStore;
  /**
   * Limits and budgets both in Redis: a request with both is admitted with its reservation, in one
   * round trip (pipeline/budget.ts); undefined otherwise, and each store is asked alone.
   */
  readonly joint?: JointStore | undefined;
  /** What is reported to the metrics besides the records (budget refusals); calls do nothing with metrics off. */
  readonly metrics: MetricsHooks;
  /** Traces each request, when tracing is on; undefined otherwise, and then requests do nothing for it. */
  readonly tracer?: Tracer | undefined;
}

/** What the whole gateway carries at once, across config reloads: model requests in progress, and bytes held in memory. */
export interface ServerLoad {
  active: number;
  bufferedBytes: number;
}

export const newServerLoad = (): ServerLoad => ({ active: 0, bufferedBytes: 0 });

/** A request counted in against the server's cap, which may then ask its key group's limits (see admit.ts). */
export interface Place {
  /**
   * Asks the limit store whether a request of `group` may start. Returns nothing when the store
   * admitted it at once; throws a 429 when refused and a 503 when the store failed. When the
   * store answers with a promise, returns one that resolves true once admitted, false when the
   * client left first (the admission, if any, is then ended at once with 0 tokens: nothing was
   * used), or rejects with the same errors.
   */
  admit(group: KeyGroupConfig): Promise<boolean> | undefined;
  /**
   * Takes an admission the store granted with the request's reservation (pipeline/budget.ts), to be ended
   * when the place is left; false when the client left first (the admission is then ended at once).
   */
  adopt(admission: Admission): boolean;
  /** Gives the place back, with the tokens the request used; the first call counts, later ones do nothing. */
  leave(tokens: number): void;
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

/**
 * What must run when the response closes, pushed by the step that took it. A plain function of
 * the context (never a closure made per request), so pushing one allocates nothing.
 */
export type Cleanup = (ctx: RequestContext) => void;

/** Made once per handler (per config generation): what each of its requests starts from. */
export interface Served {
  readonly getState: () => GatewayState;
  readonly deps: HandlerDeps;
  readonly records: RecordSource;
}

const ignore = (): void => {};

/** One request, from its arrival to the close of its response. Every step of the pipeline takes it. */
export class RequestContext {
  /** The state of the config generation the request started under; a reload does not change it. */
  readonly state: GatewayState;
  readonly deps: HandlerDeps;
  readonly record: RequestRecord;
  /** Run when the response closes, the last pushed first; each step pushes what it took. */
  readonly cleanups: Cleanup[] = [];
  /** Called after the cleanups: the server counts its requests in flight with it. */
  closed: () => void = ignore;
  /** Whether the client left before the response ended; known once the response has closed. */
  left = false;
  /** The caller's key group, once the key is known. */
  group: KeyGroupConfig | undefined = undefined;
  /** The caller's key, once known. */
  key: GatewayKey | undefined = undefined;
  /** What the request reserved on its budgets (its largest cost), settled when the response closes. */
  reservation: { readonly reservation: Reservation; readonly usd: number } | undefined = undefined;
  /** The request's place in the server's cap and its group's limits. */
  place: Place | undefined = undefined;
  /** The request's share of the gateway's buffered bytes: its body, then an answer read whole. */
  budget: ByteBudget | undefined = undefined;
  /** Aborted when the client goes away, or with a GatewayError when the total time runs out. */
  controller: CallAbort | undefined = undefined;
  /** The current route's provider's cap on the call's total time. */
  deadline: Deadline | undefined = undefined;
  /** The credential of the last attempt, for a provider with several (settled when the request ends). */
  credential: CredentialPick | undefined = undefined;
  /** The price of the route being tried: the request's cost when it ends (undefined: none known). */
  price: Price | undefined = undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    served: Served,
  ) {
    this.state = served.getState();
    this.deps = served.deps;
    this.record = requestStarted(req, pathOf(req.url), served.records);
  }
}
