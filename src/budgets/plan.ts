/**
 * The budgets a request answers to: its key group's and its key's, each with the counter of the
 * period now running. Made once per key per config generation; the counters are replaced only when
 * their period ends, so admission reads a ready list.
 */
import type { Budget, BudgetPeriod, Config, GatewayKey, KeyGroupConfig } from '../config/types.js';
import type { BudgetCounter } from './budget-store.js';
import { machineTimeZone, periodAt } from './periods.js';

export interface BudgetLine {
  readonly scope: 'group' | 'key';
  /** The group's name, or the key's id (a digest prefix). */
  readonly owner: string;
  /** How a message names it: `key group 'dev'`, `key 'alice'`. */
  readonly label: string;
  readonly usd: number;
  readonly per: BudgetPeriod;
  /**
   * Where its counters' ids start, `group:dev:day@Europe/Paris`: what it counts, and in which zone's
   * calendar (another zone's periods are other counters, whose spend a reload restores).
   */
  readonly stem: string;
}

export interface BudgetPlan {
  readonly lines: readonly BudgetLine[];
  /** The counter of each line's running period, in the same order; replaced as periods end. */
  readonly counters: BudgetCounter[];
  readonly timeZone: string;
}

/** Whether a key's requests answer to any budget: read per request, so only two fields. */
export const hasBudgets = (group: KeyGroupConfig, key: GatewayKey): boolean => group.budgets !== undefined || key.budgets !== undefined;

/**
 * Whether the gateway keeps the usage ledger: as `server.ledger` says, else when a budget needs it (its
 * spend must survive a restart). Off otherwise, since writing it costs every request some CPU.
 */
export function keepsLedger(config: Config): boolean {
  if (config.server.ledger !== undefined) return config.server.ledger;
  for (const group of config.keyGroups.values()) if (group.budgets !== undefined) return true;
  for (const key of config.keys.values()) if (key.budgets !== undefined) return true;
  return false;
}

const plans = new WeakMap<GatewayKey, BudgetPlan>();

/** The plan of a key's requests, made on its first request (keys are made anew with each config generation). */
export function budgetPlan(config: Config, group: KeyGroupConfig, key: GatewayKey): BudgetPlan {
  let plan = plans.get(key);
  if (plan === undefined) {
    const timeZone = config.server.timeZone ?? machineTimeZone();
    const lines = [...linesOf(groupOwner(group), group.budgets, timeZone), ...linesOf(keyOwner(key), key.budgets, timeZone)];
    plan = { lines, counters: lines.map((l) => counterOf(l, timeZone, Date.now())), timeZone };
    plans.set(key, plan);
  }
  return plan;
}

/** The plan's counters at `now`: those whose period has ended are replaced by the next period's. */
export function currentCounters(plan: BudgetPlan, now: number): readonly BudgetCounter[] {
  const { counters } = plan;
  for (let i = 0; i < counters.length; i++) if (now >= counters[i]!.resetsAt) counters[i] = counterOf(plan.lines[i]!, plan.timeZone, now);
  return counters;
}

/** Every budget line of a config: what the ledger restores spend for at start. */
export function allLines(config: Config): BudgetLine[] {
  const timeZone = config.server.timeZone ?? machineTimeZone();
  const out: BudgetLine[] = [];
  for (const g of config.keyGroups.values()) {
    out.push(...linesOf(groupOwner(g), g.budgets, timeZone));
    for (const k of g.keys) out.push(...linesOf(keyOwner(k), k.budgets, timeZone));
  }
  return out;
}

type Owner = Pick<BudgetLine, 'scope' | 'owner' | 'label'>;
const groupOwner = (g: KeyGroupConfig): Owner => ({ scope: 'group', owner: g.name, label: `key group '${g.name}'` });
const keyOwner = (k: GatewayKey): Owner => ({ scope: 'key', owner: k.id, label: `key '${k.name ?? k.id}'` });

export function counterOf(line: BudgetLine, timeZone: string, now: number): BudgetCounter {
  const { start, end } = periodAt(line.per, timeZone, now);
  return { id: `${line.stem}:${start}`, usd: line.usd, resetsAt: end };
}

/** One line per period: two budgets over the same period are one, the smaller. */
function linesOf(who: Owner, budgets: readonly Budget[] | undefined, timeZone: string): BudgetLine[] {
  const byPeriod = new Map<BudgetPeriod, number>();
  for (const b of budgets ?? []) byPeriod.set(b.per, Math.min(b.usd, byPeriod.get(b.per) ?? Number.POSITIVE_INFINITY));
  return [...byPeriod].map(([per, usd]) => ({ ...who, usd, per, stem: `${who.scope}:${who.owner}:${per}@${timeZone}` }));
}
