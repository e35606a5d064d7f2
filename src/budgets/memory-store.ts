/**
 * Budget counters in this process's memory. A counter is made on first use and forgotten once its
 * period is over and nothing is reserved on it; forgetting is looked at only when a counter is made
 * (a new period), so admission itself walks no table.
 */
import type { BudgetCounter, BudgetDecision, BudgetStore, Reservation } from './budget-store.js';

interface Spend {
  spent: number;
  reserved: number;
  resetsAt: number;
}

export function createMemoryBudgetStore(): BudgetStore {
  const counters = new Map<string, Spend>();

  const spendOf = (c: BudgetCounter, now: number): Spend => {
    let s = counters.get(c.id);
    if (s === undefined) {
      for (const [id, old] of counters) if (old.resetsAt <= now && old.reserved <= 0) counters.delete(id);
      s = { spent: 0, reserved: 0, resetsAt: c.resetsAt };
      counters.set(c.id, s);
    }
    return s;
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
      for (const s of spends) s.reserved += amount;
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
