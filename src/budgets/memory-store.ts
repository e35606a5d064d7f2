/**
 * Budget counters in this process's memory. A calendar counter is made on first use and forgotten
 * once its period is over and nothing is reserved on it; forgetting is looked at only when a
 * counter is made (a new period), so admission itself walks no table.
 *
 * Sessions' counters are kept apart, least recently reserved on first: those idle past their
 * `resetsAt` are forgotten from the front as new ones come, and past `maxSessions` the least
 * recently used goes, so a flood of made-up session ids costs a bounded table and never a calendar
 * counter. A forgotten session starts again from nothing, as a new session would.
 */
import type { BudgetCounter, BudgetDecision, BudgetStore, Reservation } from './budget-store.js';

interface Spend {
  readonly id: string;
  spent: number;
  reserved: number;
  resetsAt: number;
}

/** Sessions' counters kept at most by default: far more than a team runs at once. */
export const MAX_SESSIONS = 10_000;

export function createMemoryBudgetStore(options: { readonly maxSessions?: number } = {}): BudgetStore {
  const maxSessions = options.maxSessions ?? MAX_SESSIONS;
  const counters = new Map<string, Spend>();
  /** In the order they were last reserved on (Map order: a use moves one to the end). */
  const sessions = new Map<string, Spend>();

  const sessionSpend = (c: BudgetCounter, now: number): Spend => {
    let s = sessions.get(c.id);
    if (s !== undefined) return s;
    // Idle ones from the front (the least recently used; one still holding a reservation is passed over).
    for (const old of sessions.values()) {
      if (old.resetsAt > now) break;
      if (old.reserved <= 0) sessions.delete(old.id);
    }
    if (sessions.size >= maxSessions) {
      for (const old of sessions.values()) {
        if (old.reserved <= 0) {
          sessions.delete(old.id);
          break;
        }
      }
    }
    s = { id: c.id, spent: 0, reserved: 0, resetsAt: c.resetsAt };
    sessions.set(c.id, s);
    return s;
  };

  const spendOf = (c: BudgetCounter, now: number): Spend => {
    if (c.session) return sessionSpend(c, now);
    let s = counters.get(c.id);
    if (s === undefined) {
      for (const [id, old] of counters) if (old.resetsAt <= now && old.reserved <= 0) counters.delete(id);
      s = { id: c.id, spent: 0, reserved: 0, resetsAt: c.resetsAt };
      counters.set(c.id, s);
    }
    return s;
  };

  /** A session reserved on lives on from now, and moves to the back of the queue. */
  const used = (s: Spend, c: BudgetCounter): void => {
    if (!c.session) return;
    if (c.resetsAt > s.resetsAt) s.resetsAt = c.resetsAt;
    sessions.delete(s.id);
    sessions.set(s.id, s);
  };

  return {
    reserve(list, usd, now) {
      const spends: Spend[] = [];
      for (let i = 0; i < list.length; i++) {
        const c = list[i]!;
        const s = spendOf(c, now);
        if (s.spent + s.reserved >= c.usd) return { ok: false, index: i, spent: s.spent + s.reserved } satisfies BudgetDecision;
        spends.push(s);
      }
      const amount = Number.isFinite(usd) && usd > 0 ? usd : 0;
      for (let i = 0; i < spends.length; i++) {
        const s = spends[i]!;
        s.reserved += amount;
        used(s, list[i]!);
      }
      let settled = false;
      const reservation: Reservation = {
        settle(cost) {
          if (settled) return;
          settled = true;
          const spent = Number.isFinite(cost) && cost > 0 ? cost : 0;
          for (const s of spends) {
            s.reserved -= amount;
            s.spent += spent;
          }
        },
      };
      return { ok: true, reservation };
    },
    seed(counter, usd) {
      if (!Number.isFinite(usd) || usd <= 0) return;
      spendOf(counter, Date.now()).spent += usd;
    },
  };
}
