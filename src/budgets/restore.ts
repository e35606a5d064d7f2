/**
 * Spend that survives a restart: the usage ledger's entries since the start of each budget's running
 * period, added to the budget store's counters. At start for every budget; after a reload, for the
 * budgets it added (the others have been counted by this process since their period started).
 */
import type { Config } from '../config/types.js';
import { type LedgerRead, readLedger } from '../ledger/read.js';
import type { BudgetStore } from './budget-store.js';
import { type BudgetLine, counterOf } from './plan.js';
import { machineTimeZone, periodAt } from './periods.js';

export async function restoreSpend(dir: string, config: Config, lines: readonly BudgetLine[], store: BudgetStore): Promise<LedgerRead | undefined> {
  if (lines.length === 0) return undefined;
  const timeZone = config.server.timeZone ?? machineTimeZone();
  const now = Date.now();
  const counters = lines.map((l) => counterOf(l, timeZone, now));
  const starts = lines.map((l) => periodAt(l.per, timeZone, now).start);
  const sums = new Array<number>(lines.length).fill(0);
  // Lines by what an entry is matched on, so each entry looks only at its own.
  const byOwner = new Map<string, number[]>();
  lines.forEach((l, i) => {
    const at = `${l.scope}\u0000${l.owner}`;
    byOwner.set(at, [...(byOwner.get(at) ?? []), i]);
  });
  const read = await readLedger(dir, { from: Math.min(...starts), to: Number.POSITIVE_INFINITY }, (e) => {
    if (e.usd === null || e.usd === 0) return;
    for (const i of [...(byOwner.get(`group\u0000${e.group}`) ?? []), ...(byOwner.get(`key\u0000${e.keyId}`) ?? [])]) {
      if (e.time >= starts[i]! && e.time < counters[i]!.resetsAt) sums[i]! += e.usd;
    }
  });
  await Promise.all(counters.map((c, i) => store.seed(c, sums[i]!)));
  return read;
}

/** Lines in `next` that `previous` did not have (by what they count: scope, owner, period and the zone of its calendar). */
export function addedLines(previous: readonly BudgetLine[], next: readonly BudgetLine[]): BudgetLine[] {
  const had = new Set(previous.map((l) => l.stem));
  return next.filter((l) => !had.has(l.stem));
}
