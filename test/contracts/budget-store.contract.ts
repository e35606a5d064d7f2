/**
 * What every `BudgetStore` must do, as one suite run once per implementation (one `*.test.ts` per
 * store calls `runBudgetStoreContract`). Decisions are read with `await`, so a store answering at
 * once and one answering through a promise (Redis) run the same tests.
 */
import { describe, expect, it } from 'vitest';
import type { BudgetCounter, BudgetDecision, BudgetStore, Reservation } from '#src/budgets/budget-store.js';

export interface BudgetStoreContract {
  /** A fresh store, sharing nothing with any made before. */
  readonly newStore: () => BudgetStore | Promise<BudgetStore>;
  /** A second client of the same store, as a second gateway instance would be (undefined: the store is one process's). */
  readonly sibling?: (store: BudgetStore) => BudgetStore | Promise<BudgetStore>;
}

const NOW = Date.UTC(2026, 10, 26, 12);
let serial = 0;
/** A counter of its own per test, so that a shared store's tests do not meet. */
const counter = (usd: number, resetsAt = NOW + 3_600_000): BudgetCounter => ({ id: `contract:${process.pid}:${Date.now()}:${++serial}`, usd, resetsAt });
/** A per-session budget's line: `of(session, lastUsed)` is that session's counter, as budgets/plan.ts makes it. */
const sessionLine = (usd: number) => {
  const stem = `contract:${process.pid}:${Date.now()}:${++serial}:session`;
  return (session: string, lastUsed = NOW): BudgetCounter => ({ id: `${stem}:${session}`, usd, resetsAt: lastUsed + 86_400_000, session: true });
};

export function runBudgetStoreContract(name: string, contract: BudgetStoreContract): void {
  const reserved = async (d: BudgetDecision | Promise<BudgetDecision>): Promise<Reservation> => {
    const decision = await d;
    if (!decision.ok) throw new Error(`refused: ${JSON.stringify(decision)}`);
    return decision.reservation;
  };
  const refused = async (d: BudgetDecision | Promise<BudgetDecision>) => {
    const decision = await d;
    if (decision.ok) throw new Error('reserved');
    return decision;
  };

  describe(`BudgetStore contract: ${name}`, () => {
    it('admits under the budget, and refuses once settled spend reaches it, naming the counter and its spend', async () => {
      const store = await contract.newStore();
      const c = counter(1);
      (await reserved(store.reserve([c], 0.4, NOW))).settle(0.6);
      (await reserved(store.reserve([c], 0.4, NOW))).settle(0.4);
      const no = await refused(store.reserve([c], 0.01, NOW));
      expect(no.index).toBe(0);
      expect(no.spent).toBeCloseTo(1, 9);
    });

    it('counts reservations while requests run, so concurrent ones cannot all slip under', async () => {
      const store = await contract.newStore();
      const c = counter(1);
      // Each may cost 0.3: the fourth starts at 0.9 (under), the fifth at 1.2.
      const decisions = await Promise.all(Array.from({ length: 8 }, () => store.reserve([c], 0.3, NOW)));
      expect(decisions.filter((d) => d.ok)).toHaveLength(4);
    });

    it('gives back what a reservation did not spend, and a failed request costs nothing', async () => {
      const store = await contract.newStore();
      const c = counter(1);
      const big = await reserved(store.reserve([c], 5, NOW));
      // The reservation alone reaches the budget while it runs.
      await refused(store.reserve([c], 0.01, NOW));
      big.settle(0);
      (await reserved(store.reserve([c], 0.5, NOW))).settle(0.25);
      (await reserved(store.reserve([c], 0.5, NOW))).settle(0.5);
      (await reserved(store.reserve([c], 0.5, NOW))).settle(0.25);
      expect((await refused(store.reserve([c], 0.1, NOW))).spent).toBeCloseTo(1, 9);
    });

    it('settles once: a second settle changes nothing', async () => {
      const store = await contract.newStore();
      const c = counter(1);
      const r = await reserved(store.reserve([c], 0.5, NOW));
      r.settle(0.5);
      r.settle(0.5);
      // Counted twice, the spend would be 1 and this refused.
      (await reserved(store.reserve([c], 0, NOW))).settle(0.4);
      (await reserved(store.reserve([c], 0, NOW))).settle(0.2);
      expect((await refused(store.reserve([c], 0, NOW))).spent).toBeCloseTo(1.1, 9);
    });

    it('checks every counter: refused by the first spent one, reserving on none', async () => {
      const store = await contract.newStore();
      const day = counter(10);
      const month = counter(1);
      (await reserved(store.reserve([month], 0, NOW))).settle(1);
      const no = await refused(store.reserve([day, month], 0.5, NOW));
      expect(no.index).toBe(1);
      // Nothing was reserved on the day's counter by the refused request.
      (await reserved(store.reserve([day], 9.99, NOW))).settle(0);
    });

    it('takes hostile amounts as nothing: negative, NaN and infinite reservations and costs', async () => {
      const store = await contract.newStore();
      const c = counter(1);
      for (const bad of [-5, Number.NaN, Number.POSITIVE_INFINITY]) (await reserved(store.reserve([c], bad, NOW))).settle(bad);
      (await reserved(store.reserve([c], 0.9, NOW))).settle(0.9);
    });

    it('holds a reservation of any size (a hostile output cap) as one past the budget, and is unharmed once it is settled', async () => {
      const store = await contract.newStore();
      const c = counter(1);
      const huge = await reserved(store.reserve([c], 1e300, NOW));
      expect((await refused(store.reserve([c], 0.1, NOW))).index).toBe(0);
      huge.settle(0);
      // Given back whole: nothing reserved is left of it, so spend alone decides.
      (await reserved(store.reserve([c], 0.5, NOW))).settle(0.99);
      (await reserved(store.reserve([c], 0.5, NOW))).settle(0.01);
      expect((await refused(store.reserve([c], 0.5, NOW))).spent).toBeCloseTo(1, 9);
    });

    it('adds seeded spend (the ledger at start) to what it counts', async () => {
      const store = await contract.newStore();
      const c = counter(1);
      await store.seed(c, 0.8);
      (await reserved(store.reserve([c], 0.2, NOW))).settle(0.2);
      expect((await refused(store.reserve([c], 0.2, NOW))).spent).toBeCloseTo(1, 9);
    });

    it('a new period is a new counter, starting from nothing', async () => {
      const store = await contract.newStore();
      const today = counter(1, NOW + 1000);
      (await reserved(store.reserve([today], 0, NOW))).settle(1);
      await refused(store.reserve([today], 0, NOW));
      const tomorrow = counter(1, NOW + 86_400_000);
      (await reserved(store.reserve([tomorrow], 0.5, NOW + 2000))).settle(0.5);
    });

    it('counts each session apart: one spent is refused, another of the same budget is not', async () => {
      const store = await contract.newStore();
      const of = sessionLine(1);
      (await reserved(store.reserve([of('a')], 0.5, NOW))).settle(0.7);
      (await reserved(store.reserve([of('a')], 0.5, NOW))).settle(0.4);
      const no = await refused(store.reserve([of('a')], 0.01, NOW));
      expect(no).toMatchObject({ index: 0 });
      expect(no.spent).toBeCloseTo(1.1, 9);
      (await reserved(store.reserve([of('b')], 0.5, NOW))).settle(0.5);
      (await reserved(store.reserve([of('b')], 0.5, NOW))).settle(0.5);
      expect((await refused(store.reserve([of('b')], 0.01, NOW))).spent).toBeCloseTo(1, 9);
    });

    it('checks a session with its calendar counters: refused by the session, the day keeps nothing of the refused request', async () => {
      const store = await contract.newStore();
      const day = counter(10);
      const of = sessionLine(1);
      (await reserved(store.reserve([day, of('a')], 0.5, NOW))).settle(1);
      expect(await refused(store.reserve([day, of('a', NOW + 1000)], 0.5, NOW + 1000))).toMatchObject({ index: 1 });
      // The day has the one dollar spent and nothing reserved for the refused request: with 8.99 more
      // reserved it is still under its 10 (had the refused request's 0.5 stayed, 10.49).
      const held = await reserved(store.reserve([day, of('b', NOW + 2000)], 8.99, NOW + 2000));
      (await reserved(store.reserve([day], 0, NOW + 3000))).settle(0);
      held.settle(0);
    });

    it("keeps a session's spend while it goes on, each reservation moving its end on", async () => {
      const store = await contract.newStore();
      const of = sessionLine(1);
      const hour = 3_600_000;
      (await reserved(store.reserve([of('a', NOW)], 0, NOW))).settle(0.5);
      (await reserved(store.reserve([of('a', NOW + 20 * hour)], 0, NOW + 20 * hour))).settle(0.25);
      // Past its first end (a day after its first request), and another session made meanwhile
      // (when a store may look for idle ones): it still has its spend.
      (await reserved(store.reserve([of('b', NOW + 30 * hour)], 0, NOW + 30 * hour))).settle(0);
      (await reserved(store.reserve([of('a', NOW + 30 * hour)], 0, NOW + 30 * hour))).settle(0.25);
      expect((await refused(store.reserve([of('a', NOW + 31 * hour)], 0, NOW + 31 * hour))).spent).toBeCloseTo(1, 9);
    });

    it('adds seeded spend (the ledger at start) to a session', async () => {
      const store = await contract.newStore();
      const of = sessionLine(1);
      await store.seed(of('a'), 0.9);
      (await reserved(store.reserve([of('a')], 0.1, NOW))).settle(0.1);
      expect((await refused(store.reserve([of('a')], 0, NOW))).spent).toBeCloseTo(1, 9);
      (await reserved(store.reserve([of('b')], 0.9, NOW))).settle(0.9);
    });

    if (contract.sibling) {
      const sibling = contract.sibling;
      it('two clients of one store share its counters', async () => {
        const a = await contract.newStore();
        const b = await sibling(a);
        const c = counter(1);
        const both = await Promise.all([...Array.from({ length: 4 }, () => a.reserve([c], 0.3, NOW)), ...Array.from({ length: 4 }, () => b.reserve([c], 0.3, NOW))]);
        expect(both.filter((d) => d.ok)).toHaveLength(4);
      });
    }
  });
}
