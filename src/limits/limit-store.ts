/**
 * Per-key-group limits behind a small interface, so several gateway instances
 * serving one team could share them through a store such as Redis (see the
 * README, "Limits"). The gateway asks before each model request and reports
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
