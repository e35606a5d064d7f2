import { describe, expect, it } from 'vitest';
import { runBudgetStoreContract } from '../../test/contracts/budget-store.contract.js';
import type { BudgetCounter, BudgetDecision, BudgetStore } from './budget-store.js';
import { createMemoryBudgetStore } from './memory-store.js';

runBudgetStoreContract('memory', { newStore: () => createMemoryBudgetStore() });

const NOW = Date.UTC(2026, 10, 26, 12);
const DAY = 86_400_000;
const session = (id: string, lastUsed: number): BudgetCounter => ({ id: `group:dev:session:${id}`, usd: 1, resetsAt: lastUsed + DAY, session: true });
const calendar: BudgetCounter = { id: 'group:dev:day@UTC:0', usd: 100, resetsAt: NOW + DAY };

/** Spends `usd` in the session at `now`; whether it was admitted. */
function spend(store: BudgetStore, counters: readonly BudgetCounter[], usd: number, now: number): boolean {
  const d = store.reserve(counters, 0, now) as BudgetDecision;
  if (d.ok) d.reservation.settle(usd);
  return d.ok;
}

describe('the memory budget store and sessions', () => {
  it('forgets a session idle past its end once another is made, and it starts again from nothing', () => {
    const store = createMemoryBudgetStore();
    expect(spend(store, [session('a', NOW)], 1, NOW)).toBe(true);
    expect(spend(store, [session('a', NOW + 1000)], 0, NOW + 1000)).toBe(false);
    // A day and more without a request; then another session comes.
    expect(spend(store, [session('b', NOW + 2 * DAY)], 0, NOW + 2 * DAY)).toBe(true);
    expect(spend(store, [session('a', NOW + 2 * DAY)], 0.5, NOW + 2 * DAY)).toBe(true);
    expect(spend(store, [session('a', NOW + 2 * DAY)], 0.5, NOW + 2 * DAY)).toBe(true);
    expect(spend(store, [session('a', NOW + 2 * DAY)], 0, NOW + 2 * DAY)).toBe(false);
  });

  it('keeps at most maxSessions, the least recently used going first, and never a calendar counter', () => {
    const store = createMemoryBudgetStore({ maxSessions: 3 });
    expect(spend(store, [calendar, session('a', NOW)], 1, NOW)).toBe(true);
    expect(spend(store, [calendar, session('b', NOW + 1)], 1, NOW + 1)).toBe(true);
    expect(spend(store, [calendar, session('c', NOW + 2)], 1, NOW + 2)).toBe(true);
    // A refused request does not count as a use: `a` stays the least recently used.
    expect(spend(store, [calendar, session('a', NOW + 3)], 0, NOW + 3)).toBe(false);
    // A fourth session: `a` is forgotten, `b` and `c` are kept.
    expect(spend(store, [calendar, session('d', NOW + 4)], 1, NOW + 4)).toBe(true);
    expect(spend(store, [calendar, session('b', NOW + 5)], 0, NOW + 5)).toBe(false);
    expect(spend(store, [calendar, session('c', NOW + 6)], 0, NOW + 6)).toBe(false);
    // Many more sessions: the calendar counter keeps every dollar spent (4 so far, then 20).
    for (let i = 0; i < 20; i++) expect(spend(store, [calendar, session(`x${i}`, NOW + 10 + i)], 1, NOW + 10 + i)).toBe(true);
    const d = store.reserve([calendar], 0, NOW + 100) as BudgetDecision;
    expect(d.ok).toBe(true);
    if (d.ok) d.reservation.settle(76);
    expect(store.reserve([calendar], 0, NOW + 101)).toMatchObject({ ok: false, spent: 100 });
  });

  it('does not forget a session while one of its requests runs', () => {
    const store = createMemoryBudgetStore({ maxSessions: 1 });
    const running = store.reserve([session('a', NOW)], 0.6, NOW) as BudgetDecision;
    expect(running.ok).toBe(true);
    expect(spend(store, [session('b', NOW + 1)], 0, NOW + 1)).toBe(true);
    // `a` is still there, its reservation on it: settled, its cost reaches the budget.
    expect(store.reserve([session('a', NOW + 2)], 0, NOW + 2)).toMatchObject({ ok: true });
    if (running.ok) running.reservation.settle(1);
    expect(store.reserve([session('a', NOW + 3)], 0, NOW + 3)).toMatchObject({ ok: false });
  });
});
