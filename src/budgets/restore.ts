/**
 * Spend that survives a restart: the usage ledger's entries since the start of each budget's running
 * period, added to the budget store's counters. At start for every budget; after a reload, for the
 * budgets it added (the others have been counted by this process since their period started).
 *
 * A per-session budget's counters are its sessions still alive: the ledger's entries of the last
 * SESSION_RESTORE_MS, summed per session, a session's sum starting afresh after a gap of a day
 * (it had been forgotten then), and kept when its last request is less than a day old. A session
 * id reads back exactly as the ledger wrote it (JSON's escapes, nothing for a terminal: ledger/entry.ts),
 * which is the id the session's next request carries, whatever bytes its header held.
 */
import type { BudgetPeriod, Config } from '../config/types.js';
import type { LedgerEntry } from '../ledger/entry.js';
import { type LedgerRead, readLedger } from '../ledger/read.js';
import type { BudgetStore } from './budget-store.js';
import { MAX_SESSIONS } from './memory-store.js';
import { type BudgetLine, counterOf, SESSION_IDLE_MS, sessionCounter } from './plan.js';
import { machineTimeZone, periodAt } from './periods.js';

/** How far back sessions' spend is read: a session running longer than that without a day's pause counts from there. */
export const SESSION_RESTORE_MS = 7 * 86_400_000;

/** A session's spend as the ledger is read: since its last gap of a day, and when its last request started. */
interface SessionSum {
  usd: number;
  last: number;
}

export async function restoreSpend(dir: string, config: Config, lines: readonly BudgetLine[], store: BudgetStore): Promise<LedgerRead | undefined> {
  if (lines.length === 0) return undefined;
  const timeZone = config.server.timeZone ?? machineTimeZone();
  const now = Date.now();
  const calendar = lines.filter(isCalendar);
  const perSession = lines.filter((l) => l.per === 'session');
  const counters = calendar.map((l) => counterOf(l, timeZone, now));
  const starts = calendar.map((l) => periodAt(l.per, timeZone, now).start);
  const sums = new Array<number>(calendar.length).fill(0);
  // Lines by what an entry is matched on, so each entry looks only at its own.
  const byOwner = new Map<string, number[]>();
  calendar.forEach((l, i) => {
    const at = `${l.scope}\u0000${l.owner}`;
    byOwner.set(at, [...(byOwner.get(at) ?? []), i]);
  });
  const sessionsOf = new Map<string, { line: BudgetLine; sums: Map<string, SessionSum> }[]>();
  for (const line of perSession) {
    const at = `${line.scope}\u0000${line.owner}`;
    sessionsOf.set(at, [...(sessionsOf.get(at) ?? []), { line, sums: new Map() }]);
  }
  const owners = (e: LedgerEntry) => [`group\u0000${e.group}`, `key\u0000${e.keyId}`];
  const from = Math.min(...starts, perSession.length > 0 ? now - SESSION_RESTORE_MS : Number.POSITIVE_INFINITY);
  const read = await readLedger(dir, { from, to: Number.POSITIVE_INFINITY }, (e) => {
    if (e.usd === null || e.usd === 0) return;
    for (const owner of owners(e)) {
      for (const i of byOwner.get(owner) ?? []) if (e.time >= starts[i]! && e.time < counters[i]!.resetsAt) sums[i]! += e.usd;
      if (e.session === undefined) continue;
      for (const { sums: bySession } of sessionsOf.get(owner) ?? []) addSession(bySession, e.session, e);
    }
  });
  const seeds: Promise<void>[] = counters.map(async (c, i) => store.seed(c, sums[i]!));
  for (const { line, sums: bySession } of [...sessionsOf.values()].flat()) {
    // Least recently used first, as a store keeps them.
    const alive = [...bySession].filter(([, s]) => s.last + SESSION_IDLE_MS > now).sort((a, b) => a[1].last - b[1].last);
    for (const [session, s] of alive) seeds.push(Promise.resolve(store.seed(sessionCounter(line, session, s.last), s.usd)));
  }
  await Promise.all(seeds);
  return read;
}

/** An entry added to its session's sum; a gap of a day starts the sum again. Bounded: past MAX_SESSIONS the first seen is dropped. */
function addSession(sums: Map<string, SessionSum>, session: string, e: LedgerEntry): void {
  const s = sums.get(session);
  if (s === undefined) {
    // The first seen goes first: entries come roughly in time order.
    if (sums.size >= MAX_SESSIONS) sums.delete(sums.keys().next().value!);
    sums.set(session, { usd: e.usd ?? 0, last: e.time });
    return;
  }
  if (e.time - s.last >= SESSION_IDLE_MS) s.usd = 0;
  s.usd += e.usd ?? 0;
  if (e.time > s.last) s.last = e.time;
}

const isCalendar = (l: BudgetLine): l is BudgetLine & { readonly per: BudgetPeriod } => l.per !== 'session';

/** Lines in `next` that `previous` did not have (by what they count: scope, owner, period and the zone of its calendar). */
export function addedLines(previous: readonly BudgetLine[], next: readonly BudgetLine[]): BudgetLine[] {
  const had = new Set(previous.map((l) => l.stem));
  return next.filter((l) => !had.has(l.stem));
}
