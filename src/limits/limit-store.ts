/**
 * Per-key-group limits behind a small interface, so several gateway instances
 * serving one team can share them through Redis (see the README, "Several
 * gateways, one team"). The gateway asks before each model request and reports
 * back when it ends; a store may answer synchronously (memory) or not (network).
 */
import type { GroupLimits } from '../config/types.js';

export type LimitName = keyof GroupLimits;

export type Decision =
  | { readonly ok: true; readonly admission: Admission }
  | { readonly ok: false; readonly limit: LimitName; readonly value: number; readonly retryAfterMs: number };

/** A request let in; ended exactly once, with the tokens it used when the provider reported them. */
export interface Admission {
  end(tokens: number): void;
}

export interface LimitStore {
  /** Whether a request of `group` may start now. Only called for groups that have limits. */
  admit(group: string, limits: GroupLimits, now: number): Decision | Promise<Decision>;
}

/**
 * Thrown (or rejected with) by a store that knows it cannot decide and has said so in the log
 * already (Redis down, with `state.onRedisDown.limits: "closed"`): the caller gets the same 503 as
 * for any store failure, without a log line per request.
 */
export class LimitStoreDown extends Error {
  constructor() {
    super('the limit store is down');
  }
}
