/**
 * Budgets at admission: once the model and the body are known, a request whose key group or key
 * has budgets reserves its largest possible cost on each (its output cap at the output price, its
 * input at about four bytes a token), and is refused with a 429 naming the budget and when it
 * resets when one is spent already. The reservation is settled when the response closes, with the
 * cost the provider's usage came to (nothing when it failed). A request already running is never cut.
 * With limits and budgets both in Redis, a request with both is admitted here, by the same script
 * (state/admission.ts), rather than before its body was read.
 */
import { askedOutputTokens } from '../auth/group-caps.js';
import type { BudgetDecision, Reservation } from '../budgets/budget-store.js';
import { budgetPlan, currentCounters, hasBudgets } from '../budgets/plan.js';
import { wallAt } from '../budgets/periods.js';
import { maxCostOf } from '../cost/price.js';
import { GatewayError, overloaded } from '../errors.js';
import { formatUsd } from '../log/format.js';
import { printable } from '../log/terminal-text.js';
import { LimitStoreDown } from '../limits/limit-store.js';
import type { Operation } from '../protocols/types.js';
import { hasLimits, limitRefusal, limitsUnavailable } from './admit.js';
import type { Cleanup, RequestContext } from './context.js';
import type { ModelRequest } from './model-request.js';

/** Output tokens reserved for a request that names no cap, when neither its group nor its model gives one. */
export const DEFAULT_RESERVED_OUTPUT = 8192;
/** Request bytes per input token, for the estimate: few enough that the estimate is rarely short. */
const BYTES_PER_TOKEN = 4;

/**
 * Reserves the request's largest cost on its budgets. Nothing when it answers to none; throws a 429
 * when one is spent. A promise only when the store answers later: it resolves false when the client
 * left meanwhile (the reservation is then given back at once).
 */
export function reserveBudget(r: ModelRequest): Promise<boolean> | undefined {
  const { ctx, group } = r;
  const key = ctx.key;
  // Counting tokens costs nothing.
  if (key === undefined || !hasBudgets(group, key) || r.operation === 'count_tokens') return undefined;
  const plan = budgetPlan(r.state.config, group, key);
  const now = Date.now();
  const session = ctx.record.sessionId;
  const counters = currentCounters(plan, now, session);
  // Only per-session budgets, and a request that names no session: nothing limits it.
  if (counters.length === 0) return undefined;
  const price = r.primary.price;
  const body = r.body.get();
  const output = (askedOutputTokens(r.protocol, body) ?? group.maxOutputTokens ?? r.primary.target.model.maxOutputTokens ?? DEFAULT_RESERVED_OUTPUT) * choices(body);
  const usd = price ? maxCostOf(price, r.raw.length / BYTES_PER_TOKEN, output, now) : 0;
  const decided = (d: BudgetDecision): boolean => {
    if (!d.ok) {
      const line = plan.lines[d.index]!;
      ctx.deps.metrics.budgetRefused(group.name);
      if (line.per === 'session') throw sessionBudgetSpent(`${line.label} has spent its budget of ${formatUsd(line.usd)} per session in this session (${session ?? ''})`, d.spent);
      throw budgetSpent(`${line.label} has spent its budget of ${formatUsd(line.usd)} per ${line.per}`, d.spent, { resetsAt: counters[d.index]!.resetsAt, now, timeZone: plan.timeZone });
    }
    if (ctx.res.destroyed) {
      d.reservation.settle(0);
      return false;
    }
    hold(ctx, d.reservation, usd);
    return true;
  };
  const joint = ctx.deps.joint;
  if (joint !== undefined && admitsWithReservation(ctx, r.operation)) {
    // Admitted here rather than before the body was read: the limits and the budgets in one round trip.
    return joint.admit(group.name, group.limits, { counters, usd }).then(
      (d) => {
        if (!d.ok) {
          if (d.by === 'limit') throw limitRefusal(group, d.decision, ctx.record);
          return decided(d.decision);
        }
        // callModel takes the place before it reads the body; the place ends the admission when the client left already.
        if (ctx.place!.adopt(d.admission)) return decided({ ok: true, reservation: d.reservation });
        d.reservation.settle(0);
        return false;
      },
      (err: unknown) => {
        throw err instanceof LimitStoreDown ? limitsUnavailable(ctx.deps.logger, err) : storeUnavailable(err);
      },
    );
  }
  let pending: BudgetDecision | Promise<BudgetDecision>;
  try {
    pending = ctx.deps.budgets.reserve(counters, usd, now);
  } catch (err) {
    throw storeUnavailable(err);
  }
  if (pending instanceof Promise) {
    return pending.then(decided, (err: unknown) => {
      throw storeUnavailable(err);
    });
  }
  decided(pending);
  return undefined;
}

/**
 * Whether the request's limits are asked with its reservation rather than before its body is read:
 * when both are kept in Redis (`deps.joint`), so that they cost one round trip, not two.
 */
export function admitsWithReservation(ctx: RequestContext, operation: Operation): boolean {
  const { group, key } = ctx;
  return ctx.deps.joint !== undefined && operation !== 'count_tokens' && group !== undefined && key !== undefined && hasLimits(group) && hasBudgets(group, key);
}

function hold(ctx: RequestContext, reservation: Reservation, usd: number): void {
  ctx.reservation = { reservation, usd };
  ctx.cleanups.push(settleBudget);
}

/**
 * The cleanup of a request that reserved: settled with its cost (known when the response closed).
 * An answer that reported no token counts is settled at what was reserved, its largest cost: spend
 * the provider did not state is not taken as none. A request that failed costs nothing.
 */
export const settleBudget: Cleanup = (ctx) => {
  const held = ctx.reservation;
  if (held === undefined) return;
  const { cost, status } = ctx.record;
  const usd = cost !== undefined ? (cost.usd ?? 0) : status !== undefined && status >= 200 && status < 300 ? held.usd : 0;
  try {
    held.reservation.settle(usd);
  } catch (err) {
    ctx.deps.logger.info(`the budget store failed to settle a reservation: ${printable(err instanceof Error ? err.message : String(err))}`);
  }
};

/** Chat's `n` asks for that many answers, each up to the cap. */
function choices(body: Record<string, unknown>): number {
  const n = body.n;
  return typeof n === 'number' && Number.isInteger(n) && n > 1 ? n : 1;
}

function budgetSpent(what: string, spent: number, when: { resetsAt: number; now: number; timeZone: string }): GatewayError {
  const seconds = Math.max(1, Math.ceil((when.resetsAt - when.now) / 1000));
  const w = wallAt(when.timeZone, when.resetsAt);
  const pad = (n: number) => String(n).padStart(2, '0');
  const at = `${w.y}-${pad(w.m)}-${pad(w.d)} ${pad(w.h)}:${pad(w.mi)} ${when.timeZone}`;
  return new GatewayError(
    'rate_limit',
    printable(`${capitalised(what)} (${formatUsd(spent)} spent or reserved); it resets at ${at}, in ${duration(seconds)}.`),
    { code: 'budget_exceeded', headers: { 'retry-after': String(seconds) } },
  );
}

/**
 * A session's budget is not reset by the clock: the session is over for it, and a new one starts with
 * its own. No `retry-after`, since retrying in the same session does not help.
 */
function sessionBudgetSpent(what: string, spent: number): GatewayError {
  return new GatewayError(
    'rate_limit',
    printable(`${capitalised(what)} (${formatUsd(spent)} spent or reserved); a new session has a budget of its own, and this one's spend is forgotten after a day without requests.`),
    { code: 'budget_exceeded' },
  );
}

const capitalised = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function duration(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.ceil((seconds % 3600) / 60);
  return d > 0 ? `${d}d ${h}h` : h > 0 ? `${h}h ${m}m` : `${m}m`;
}

// Fails closed: a budget that cannot be checked is not waived.
function storeUnavailable(cause: unknown): GatewayError {
  return overloaded('The gateway cannot check its budgets right now (the budget store is unavailable); retry shortly.', {
    code: 'budget_store_unavailable',
    cause,
  });
}
