/**
 * Spend against budgets behind a small interface, so that several gateway instances could share it
 * through a store such as Redis, as they share limits (limits/limit-store.ts). A counter is one
 * budget's spend over one period; the gateway names it (`id`, its period included) and says when it
 * resets, so a store knows nothing of time zones or config. At admission a request reserves its
 * largest possible cost on each of its counters, refused when one is already at its budget; when
 * it ends it settles with what it cost (nothing when it failed), exactly once. A per-session
 * budget has a counter per session, which lives on while its session sends requests.
 */

export interface BudgetCounter {
  /** One budget's spend over one period (`group:dev:day:<period start>`); the same id is the same spend. */
  readonly id: string;
  /** The budget: no request starts once spend and reservations reach it. */
  readonly usd: number;
  /** Epoch ms the period ends; a store may forget the counter after it. */
  readonly resetsAt: number;
  /**
   * A session's counter (a per-session budget): `resetsAt` is a while after the session's last
   * request, moved on by each reservation on it (a refused request moves nothing). There may be any
   * number of sessions: a store keeping them in memory keeps a bounded number, forgetting the least
   * recently used first.
   */
  readonly session?: true;
}

export type BudgetDecision =
  | { readonly ok: true; readonly reservation: Reservation }
  /** `index`: the counter of the request's list that is spent; `spent`: its spend and reservations. */
  | { readonly ok: false; readonly index: number; readonly spent: number };

/** A request's reservation; settled exactly once, with what it cost (0 for a request that failed). */
export interface Reservation {
  settle(usd: number): void;
}

export interface BudgetStore {
  /** Reserves `usd` on every counter, unless one already has spend and reservations at or past its budget. */
  reserve(counters: readonly BudgetCounter[], usd: number, now: number): BudgetDecision | Promise<BudgetDecision>;
  /**
   * Spend the local usage ledger holds for a counter this store has not counted (read at start, and
   * for a budget a reload adds): added to it. A shared store that keeps spend itself may ignore it.
   */
  seed(counter: BudgetCounter, usd: number): void | Promise<void>;
}

/**
 * Thrown (or rejected with) by a store that cannot decide and has said so in the log already (Redis
 * down, with `state.onRedisDown.budgets: "closed"`): the request gets the 503 of any store failure.
 */
export class BudgetStoreDown extends Error {
  constructor() {
    super('the budget store is down');
  }
}
