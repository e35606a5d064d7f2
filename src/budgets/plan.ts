/**
 * The budgets a request answers to: its key group's and its key's, each with the counter of the
 * period now running. Made once per key per config generation; the counters are replaced only when
 * their period ends, so admission reads a ready list. A per-session budget has a counter per
 * session, made for each request that names one (a request without a session id has none).
 */
import type { Budget, BudgetPer, Config, GatewayKey, KeyGroupConfig } from '../config/types.js';
import type { BudgetCounter } from './budget-store.js';
import { machineTimeZone, periodAt } from './periods.js';

export interface BudgetLine {
  readonly scope: 'group' | 'key';
  /** The group's name, or the key's id (a digest prefix). */
  readonly owner: string;
  /** How a message names it: `key group 'dev'`, `key 'alice'`. */
  readonly label: string;
  readonly usd: number;
  readonly per: BudgetPer;
  /**
   * Where its counters' ids start, `group:dev:day@Europe/Paris`: what it counts, and in which zone's
   * calendar (another zone's periods are other counters, whose spend a reload restores). A
   * per-session line's, `group:dev:session`, is followed by the session id.
   */
  readonly stem: string;
}

export interface BudgetPlan {
  /** The calendar lines, then the per-session lines. */
  readonly lines: readonly BudgetLine[];
  /** The counter of each calendar line's running period, in the same order; replaced as periods end. */
  readonly counters: BudgetCounter[];
  /** How many of `lines` are per-session (the last ones). */
  readonly sessionLines: number;
  readonly timeZone: string;
}

/**
 * How long a session's spend is kept after its last request: a session idle that long is taken as
 * over, and its counter forgotten (in memory and in Redis), so that counters do not pile up.
 */
export const SESSION_IDLE_MS = 86_400_000;

/** Whether a key's requests answer to any budget: read per request, so only two fields. */
export const hasBudgets = (group: KeyGroupConfig, key: GatewayKey): boolean => group.budgets !== undefined || key.budgets !== undefined;

const plans = new WeakMap<GatewayKey, BudgetPlan>();

/** The plan of a key's requests, made on its first request (keys are made anew with each config generation). */
export function budgetPlan(config: Config, group: KeyGroupConfig, key: GatewayKey): BudgetPlan {
  let plan = plans.get(key);
  if (plan === undefined) {
    const timeZone = config.server.timeZone ?? machineTimeZone();
    const all = [...linesOf(groupOwner(group), group.budgets, timeZone), ...linesOf(keyOwner(key), key.budgets, timeZone)];
    const calendar = all.filter((l) => l.per !== 'session');
    const sessions = all.filter((l) => l.per === 'session');
    plan = { lines: [...calendar, ...sessions], counters: calendar.map((l) => counterOf(l, timeZone, Date.now())), sessionLines: sessions.length, timeZone };
    plans.set(key, plan);
  }
  return plan;
}

/**
 * The counters a request reserves on at `now`, in the order of the plan's lines: the calendar
 * lines' (those whose period has ended replaced by the next period's), then, when the request names
 * a session, that session's counter of each per-session line. Without per-session lines, the plan's
 * own list, nothing made.
 */
export function currentCounters(plan: BudgetPlan, now: number, session: string | undefined): readonly BudgetCounter[] {
  const { counters } = plan;
  for (let i = 0; i < counters.length; i++) if (now >= counters[i]!.resetsAt) counters[i] = counterOf(plan.lines[i]!, plan.timeZone, now);
  if (plan.sessionLines === 0 || session === undefined) return counters;
  const list = counters.slice();
  for (let i = counters.length; i < plan.lines.length; i++) list.push(sessionCounter(plan.lines[i]!, session, now));
  return list;
}

/** Every budget line of a config: what the ledger restores spend for at start. */
export function allLines(config: Config): BudgetLine[] {
  // The machine's zone is asked of Intl only for a budget: Intl's first use reads its locale and zone data into
  // the process's memory, which a gateway without budgets need not hold (docs/performance.md, "Memory at start").
  let timeZone: string | undefined;
  const zone = () => (timeZone ??= config.server.timeZone ?? machineTimeZone());
  const out: BudgetLine[] = [];
  for (const g of config.keyGroups.values()) {
    if (g.budgets?.length) out.push(...linesOf(groupOwner(g), g.budgets, zone()));
    for (const k of g.keys) if (k.budgets?.length) out.push(...linesOf(keyOwner(k), k.budgets, zone()));
  }
  return out;
}

type Owner = Pick<BudgetLine, 'scope' | 'owner' | 'label'>;
const groupOwner = (g: KeyGroupConfig): Owner => ({ scope: 'group', owner: g.name, label: `key group '${g.name}'` });
const keyOwner = (k: GatewayKey): Owner => ({ scope: 'key', owner: k.id, label: `key '${k.name ?? k.id}'` });

/** The counter of a calendar line's period holding `now`. */
export function counterOf(line: BudgetLine, timeZone: string, now: number): BudgetCounter {
  if (line.per === 'session') throw new Error('a per-session budget has a counter per session (sessionCounter)');
  const { start, end } = periodAt(line.per, timeZone, now);
  return { id: `${line.stem}:${start}`, usd: line.usd, resetsAt: end };
}

/**
 * A session's counter of a per-session line, `lastUsed` being when its session last sent a request:
 * it is forgotten SESSION_IDLE_MS after that unless another request moves it on.
 */
export function sessionCounter(line: BudgetLine, session: string, lastUsed: number): BudgetCounter {
  return { id: `${line.stem}:${sessionPart(session)}`, usd: line.usd, resetsAt: lastUsed + SESSION_IDLE_MS, session: true };
}

/**
 * A session id as part of a counter's id: the caller chooses it, so it holds no `:` (a session named
 * `x:held` would otherwise be the Redis key of session `x`'s reservations).
 */
const sessionPart = (session: string): string => (session.includes(':') || session.includes('%') ? session.replace(/[%:]/g, (c) => (c === '%' ? '%25' : '%3A')) : session);

/** One line per period: two budgets over the same period are one, the smaller. */
function linesOf(who: Owner, budgets: readonly Budget[] | undefined, timeZone: string): BudgetLine[] {
  const byPeriod = new Map<BudgetPer, number>();
  for (const b of budgets ?? []) byPeriod.set(b.per, Math.min(b.usd, byPeriod.get(b.per) ?? Number.POSITIVE_INFINITY));
  return [...byPeriod].map(([per, usd]) => ({ ...who, usd, per, stem: per === 'session' ? `${who.scope}:${who.owner}:session` : `${who.scope}:${who.owner}:${per}@${timeZone}` }));
}
