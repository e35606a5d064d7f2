/**
 * A model request's place in what the gateway allows at once: the server's cap on requests
 * in progress, then its key group's limits in the `LimitStore`. A store may answer later
 * (over the network), so the client may leave before the answer arrives, or the store may
 * fail. Whatever the order, the server's count is given back once and every admission the
 * store grants is ended exactly once.
 */
import type { KeyGroupConfig, ServerConfig } from '../config/types.js';
import { GatewayError, overloaded } from '../errors.js';
import { printable } from '../log/terminal-text.js';
import { type Admission, type Decision, LimitStoreDown, type LimitName } from '../limits/limit-store.js';
import type { RequestRecord } from '../log/record.js';
import type { Cleanup, HandlerDeps, Place, ServerLoad } from './context.js';
import { limitRefused } from './events.js';

export type AdmitDeps = Pick<HandlerDeps, 'load' | 'limits' | 'logger'>;

/** Counts a model request in; throws 503 when the gateway is at `server.maxConcurrentRequests`. */
function enter(load: ServerLoad, server: ServerConfig, record: RequestRecord | undefined): void {
  if (load.active >= server.maxConcurrentRequests) {
    if (record) limitRefused(record, 'server');
    throw overloaded(`The gateway is serving its maximum of ${server.maxConcurrentRequests} requests at once; retry shortly.`);
  }
  load.active++;
}

/** The cleanup of a request that took a place: gives it back with the tokens the request used. */
export const leavePlace: Cleanup = (ctx) => {
  const usage = ctx.record.usage;
  ctx.place?.leave((usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0));
};

/**
 * A model request's place: counted in at once (503 at the server's cap), its group's limits asked
 * later. The request's record, when given, says which limit refused it.
 */
export function takePlace(deps: AdmitDeps, server: ServerConfig, record?: RequestRecord): Place {
  enter(deps.load, server, record);
  return new TakenPlace(deps, record);
}

/** A class rather than an object of closures: every model request takes one (docs/performance.md, "A small request's allocations"). */
class TakenPlace implements Place {
  private left = false;
  private admission: Admission | undefined = undefined;

  constructor(
    private readonly deps: AdmitDeps,
    private readonly record: RequestRecord | undefined,
  ) {}

  adopt(a: Admission): boolean {
    if (this.left) {
      this.end(a, 0);
      return false;
    }
    this.admission = a;
    return true;
  }

  admit(group: KeyGroupConfig): Promise<boolean> | undefined {
    const decided = (decision: Decision): boolean => {
      if (!decision.ok) throw limitRefusal(group, decision, this.record);
      return this.adopt(decision.admission);
    };
    let pending: Decision | Promise<Decision>;
    try {
      pending = this.deps.limits.admit(group.name, group.limits, Date.now());
    } catch (err) {
      throw this.unavailable(err);
    }
    if (pending instanceof Promise) {
      return pending.then(decided, (err: unknown) => {
        throw this.unavailable(err);
      });
    }
    decided(pending);
    return undefined;
  }

  leave(tokens: number): void {
    if (this.left) return;
    this.left = true;
    this.deps.load.active--;
    if (this.admission) this.end(this.admission, tokens);
  }

  // A store's end() runs inside the response's close listener: what it throws must not take the server down.
  private end(a: Admission, tokens: number): void {
    try {
      a.end(tokens);
    } catch (err) {
      this.deps.logger.info(`the limit store failed to end an admission: ${messageOf(err)}`);
    }
  }

  // A store that knows it is down has logged its outage once; a line per request would drown it.
  private unavailable(err: unknown): GatewayError {
    return limitsUnavailable(this.deps.logger, err);
  }
}

/** Whether a request of `group` must ask the limit store at all. */
export const hasLimits = (group: KeyGroupConfig): boolean => {
  const limits = group.limits;
  return (limits.requestsPerMinute ?? limits.concurrentRequests ?? limits.tokensPerMinute) !== undefined;
};

/** The 429 of a request a limit refused, which its record, when given, names. */
export function limitRefusal(group: KeyGroupConfig, decision: Extract<Decision, { ok: false }>, record?: RequestRecord): GatewayError {
  if (record) limitRefused(record, decision.limit);
  return overLimit(group, decision);
}

/** The 503 of a request whose limits cannot be checked; logged unless the store said so already (Redis down). */
export function limitsUnavailable(logger: AdmitDeps['logger'], err: unknown): GatewayError {
  if (!(err instanceof LimitStoreDown)) logger.info(`the limit store failed: ${messageOf(err)}`);
  return storeUnavailable(err);
}

// Fails closed: a limit that cannot be checked is not waived. A store that should fail open admits on its own errors.
function storeUnavailable(cause: unknown): GatewayError {
  return overloaded('The gateway cannot check its key-group limits right now (the limit store is unavailable); retry shortly.', {
    code: 'limit_store_unavailable',
    cause,
  });
}

function overLimit(group: KeyGroupConfig, decision: Extract<Decision, { ok: false }>): GatewayError {
  const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  return new GatewayError('rate_limit', `Key group '${group.name}' is over its limit of ${LIMIT_TEXT[decision.limit](decision.value)}; retry in ${seconds}s.`, {
    code: 'rate_limit_exceeded',
    headers: { 'retry-after': String(seconds), 'retry-after-ms': String(Math.ceil(decision.retryAfterMs)) },
  });
}

const LIMIT_TEXT = {
  requestsPerMinute: (n: number) => `${n} requests per minute`,
  concurrentRequests: (n: number) => `${n} concurrent requests`,
  tokensPerMinute: (n: number) => `${n} tokens per minute`,
} as const satisfies Record<LimitName, (n: number) => string>;

const messageOf = (err: unknown): string => printable(err instanceof Error ? err.message : String(err));
