/**
 * Budget counters kept in Redis, so that several gateways serving one team spend one budget: a
 * reservation is one script over all the request's counters (one round trip, atomic across
 * gateways), settling is one more (see redis-scripts.ts).
 *
 * A reservation lives `reservationTtlMs` unless pushed back: one timer per store pushes back every
 * reservation this gateway holds, a counter per command, every third of that time, so the
 * reservations of a gateway that crashed stop holding its budgets after that long.
 *
 * Seeding: each gateway's ledger holds its own requests only, so a counter Redis holds already is
 * not seeded again (it has counted every gateway's spend since it was made); one it does not hold
 * is made with the seeding gateway's spend. Redis holds the totals from then on.
 *
 * Errors are not handled here: a failed reservation rejects (the policy in shared-store.ts decides
 * what that means), and a failed settle is reported to the connection, the reservation then
 * expiring and the cost not counted in Redis (the gateway's ledger still has it).
 */
import { randomBytes } from 'node:crypto';
import type { Script } from '../limits/redis-scripts.js';
import type { EndSender } from '../limits/redis-store.js';
import type { RedisConnection } from '../state/redis-connection.js';
import { UnreadableReply } from '../state/redis-errors.js';
import type { BudgetCounter, BudgetDecision, BudgetStore, Reservation } from './budget-store.js';
import { HOLD, RESERVE, SEED, SETTLE } from './redis-scripts.js';

/** How long a reservation outlives the last sign of life of the gateway holding it. */
export const DEFAULT_RESERVATION_TTL_MS = 30_000;
/** How long a counter is kept after its period ends: gateways' clocks may disagree a little on when that is. */
const KEPT_AFTER_PERIOD_MS = 3_600_000;
/** Nano-dollars per dollar: amounts go to Redis as whole numbers of them. */
const NANO = 1e9;

export interface RedisBudgetStoreOptions {
  readonly connection: Pick<RedisConnection, 'client' | 'failed'>;
  readonly keyPrefix: string;
  readonly reservationTtlMs?: number;
}

export interface RedisBudgetStore extends BudgetStore {
  reserve(counters: readonly BudgetCounter[], usd: number, now: number): Promise<BudgetDecision>;
  seed(counter: BudgetCounter, usd: number): Promise<void>;
  /** A reservation as the part of a script that runs it with the limits' admission (state/admission.ts). */
  part(counters: readonly BudgetCounter[], usd: number, now: number): BudgetPart;
  /** Stops pushing back reservations; the connection is its owner's to close. */
  close(): void;
}

/** The keys and arguments of the reservation script (RESERVE), and what its reply means. */
export interface BudgetPart {
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
  /** As the limits' part (limits/redis-store.ts): `send` takes the settling's SETTLE keys and arguments. */
  decided(reply: unknown, send?: EndSender): BudgetDecision;
}

/**
 * Dollars as whole nano-dollars, at most 2^53 - 1 (about $9M): past that a number would not be an integer Redis
 * takes (a reservation from a hostile output cap may be any size), and no budget is that large.
 */
const nano = (usd: number): number => (Number.isFinite(usd) && usd > 0 ? Math.min(Number.MAX_SAFE_INTEGER, Math.round(usd * NANO)) : 0);
/** How long a counter's keys live from `now`: until its period ends, and a while after. */
const lifeOf = (c: BudgetCounter, now: number): number => Math.max(1, Math.ceil(c.resetsAt - now)) + KEPT_AFTER_PERIOD_MS;

export function createRedisBudgetStore(options: RedisBudgetStoreOptions): RedisBudgetStore {
  const { connection } = options;
  const client = connection.client;
  const ttl = options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS;
  const prefix = `${options.keyPrefix}budgets:`;
  // Reservation ids: this store's random id and a counter, unique across gateways without a round trip.
  const instance = randomBytes(8).toString('hex');
  let next = 0;

  // Defined as the limit store defines its scripts (limits/redis-store.ts): sent whole once per connection, then by SHA1.
  for (const s of [RESERVE, SETTLE, HOLD, SEED]) client.defineCommand(s.name, s.keys >= 0 ? { numberOfKeys: s.keys, lua: s.lua } : { lua: s.lua });
  const scripted = client as unknown as Record<string, (...args: (string | number)[]) => Promise<unknown>>;
  const run = (s: Script, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> =>
    s.keys >= 0 ? scripted[s.name]!(...keys, ...args) : scripted[s.name]!(keys.length, ...keys, ...args);

  /** The reservations this gateway holds, by counter's held set: pushed back until settled. */
  const held = new Map<string, Set<string>>();
  let refresher: NodeJS.Timeout | undefined;
  const refresh = () => {
    for (const [set, ids] of held) {
      if (ids.size === 0) {
        held.delete(set);
        continue;
      }
      run(HOLD, [set], [ttl, ...ids]).catch(connection.failed);
    }
    if (held.size === 0) {
      clearInterval(refresher);
      refresher = undefined;
    }
  };
  const hold = (sets: readonly string[], id: string) => {
    for (const set of sets) {
      let ids = held.get(set);
      if (!ids) {
        ids = new Set();
        held.set(set, ids);
      }
      ids.add(id);
    }
    refresher ??= setInterval(refresh, Math.max(1, Math.floor(ttl / 3))).unref();
  };

  const keysOf = (counters: readonly BudgetCounter[]): string[] => {
    const keys: string[] = [];
    for (const c of counters) keys.push(`${prefix}${c.id}`, `${prefix}${c.id}:held`);
    return keys;
  };

  const sendSettle: EndSender = (keys, args) => {
    run(SETTLE, keys, args).catch(connection.failed);
  };
  const reserved = (counters: readonly BudgetCounter[], keys: readonly string[], id: string, send: EndSender): BudgetDecision => {
    const sets = keys.filter((_, i) => i % 2 === 1);
    if (id !== '') hold(sets, id);
    let settled = false;
    const reservation: Reservation = {
      settle(usd) {
        if (settled) return;
        settled = true;
        if (id !== '') for (const set of sets) held.get(set)?.delete(id);
        const cost = nano(usd);
        if (id === '' && cost === 0) return;
        const now = Date.now();
        send(keys, [id, cost, ...counters.map((c) => lifeOf(c, now))]);
      },
    };
    return { ok: true, reservation };
  };

  const part = (counters: readonly BudgetCounter[], usd: number, now: number): BudgetPart => {
    const keys = keysOf(counters);
    const amount = nano(usd);
    const id = amount > 0 ? `${instance}:${(next++).toString(36)}` : '';
    const args: (string | number)[] = [id, amount, ttl];
    for (const c of counters) args.push(nano(c.usd), lifeOf(c, now));
    return {
      keys,
      args,
      decided(reply, send = sendSettle) {
        // Whatever answers on that port is read as hostile: anything but the script's two shapes is a failure.
        const [ok, index, spent] = Array.isArray(reply) ? (reply as unknown[]) : [];
        if (ok === 1) return reserved(counters, keys, id, send);
        const total = typeof spent === 'string' ? Number(spent) : Number.NaN;
        if (ok !== 0 || typeof index !== 'number' || !Number.isInteger(index) || index < 1 || index > counters.length || !Number.isFinite(total)) {
          throw new UnreadableReply('budget');
        }
        return { ok: false, index: index - 1, spent: total / NANO };
      },
    };
  };

  return {
    reserve(counters, usd, now) {
      const p = part(counters, usd, now);
      return run(RESERVE, p.keys, p.args).then((reply) => p.decided(reply));
    },
    part,
    async seed(counter, usd) {
      const spent = nano(usd);
      if (spent === 0) return;
      await run(SEED, [`${prefix}${counter.id}`], [spent, lifeOf(counter, Date.now())]);
    },
    close() {
      clearInterval(refresher);
      refresher = undefined;
      held.clear();
    },
  };
}
