/**
 * The BudgetStore contract over the Redis store, against a real redis-server; then what only a
 * shared store has to do: several gateways' clients reserving at once, reservations that expire
 * when their gateway stops pushing them back, seeding only what Redis does not hold, and counters
 * that expire after their period.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BudgetCounter, BudgetDecision, Reservation } from '#src/budgets/budget-store.js';
import { createRedisBudgetStore, type RedisBudgetStore } from '#src/budgets/redis-store.js';
import { HAS_REDIS, redisSuite, startRedis, testRedisConnections, type TestRedis } from '../helpers/redis-server.js';
import { runBudgetStoreContract } from './budget-store.contract.js';

let redis: TestRedis;
const stores: RedisBudgetStore[] = [];
const { connection, freshPrefix, closeAll } = testRedisConnections(() => redis);

function store(options: { prefix?: string; reservationTtlMs?: number } = {}): RedisBudgetStore {
  const s = createRedisBudgetStore({
    connection: connection(),
    keyPrefix: options.prefix ?? freshPrefix(),
    ...(options.reservationTtlMs !== undefined ? { reservationTtlMs: options.reservationTtlMs } : {}),
  });
  stores.push(s);
  return s;
}

if (HAS_REDIS) {
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const s of stores) s.close();
    await closeAll();
    await redis?.stop();
  });
  // The sibling: another gateway's connection and store over the same keys.
  const prefixOf = new WeakMap<object, string>();
  runBudgetStoreContract('redis', {
    newStore: () => {
      const prefix = freshPrefix();
      const s = store({ prefix });
      prefixOf.set(s, prefix);
      return s;
    },
    sibling: (s) => store({ prefix: prefixOf.get(s)! }),
  });
}

const ok = async (d: Promise<BudgetDecision>): Promise<Reservation> => {
  const decision = await d;
  if (!decision.ok) throw new Error(`refused: ${JSON.stringify(decision)}`);
  return decision.reservation;
};
const until = async (check: () => Promise<boolean>, what: string) => {
  const end = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};
/** A field of a counter's hash, as a number (NaN when absent). */
const field = async (key: string, name: string): Promise<number> => {
  const observer = new Redis(redis.url);
  try {
    return Number((await observer.hget(key, name)) ?? Number.NaN);
  } finally {
    observer.disconnect();
  }
};
let serial = 0;
const counter = (usd: number, resetsAt = Date.now() + 3_600_000): BudgetCounter => ({ id: `shared:${process.pid}:${++serial}`, usd, resetsAt });

describe.skipIf(!HAS_REDIS)(redisSuite('the Redis budget store, shared by several gateways'), () => {
  it('60 reservations of $0.1 asked at once through 3 clients on a $2 budget reserve exactly 20', async () => {
    const prefix = freshPrefix();
    const gateways = [store({ prefix }), store({ prefix }), store({ prefix })];
    const c = counter(2);
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => gateways[i % 3]!.reserve([c], 0.1, Date.now())));
    expect(answers.filter((a) => a.ok)).toHaveLength(20);
  });

  it("a reservation of a gateway that stopped (no settle, no push back) expires; one still pushed back does not", async () => {
    const prefix = freshPrefix();
    const c = counter(1);
    const crashed = store({ prefix, reservationTtlMs: 400 });
    await ok(crashed.reserve([c], 1, Date.now()));
    const other = store({ prefix, reservationTtlMs: 400 });
    expect((await other.reserve([c], 0.2, Date.now())).ok).toBe(false);
    // The first gateway stops pushing its reservation back, as a killed process does.
    crashed.close();
    const freed = async () => {
      const d = await other.reserve([c], 0.2, Date.now());
      if (d.ok) d.reservation.settle(0);
      return d.ok;
    };
    await until(freed, 'the reservation to expire');
    // Its amount left the counter with it: nothing reserved, nothing spent.
    expect(await field(`${prefix}budgets:${c.id}`, 'reserved')).toBe(0);

    // A living gateway's reservation outlives its lifetime many times over: pushed back each third of it.
    const living = store({ prefix, reservationTtlMs: 300 });
    const held = await ok(living.reserve([c], 1, Date.now()));
    await new Promise((r) => setTimeout(r, 1200));
    expect((await other.reserve([c], 0.2, Date.now())).ok).toBe(false);
    held.settle(0.5);
    await until(async () => (await other.reserve([c], 0.4, Date.now())).ok, 'the settled reservation to be given back');
  });

  it('a settle after the reservation expired adds the cost and takes nothing off twice', async () => {
    const prefix = freshPrefix();
    const c = counter(1);
    const slow = store({ prefix, reservationTtlMs: 200 });
    const r = await ok(slow.reserve([c], 0.6, Date.now()));
    slow.close();
    const other = store({ prefix });
    // Another reservation takes the expired one off the counter.
    await until(async () => {
      const d = await other.reserve([c], 0.5, Date.now());
      if (d.ok) d.reservation.settle(0);
      return d.ok;
    }, 'the reservation to expire');
    r.settle(0.3);
    await until(async () => await field(`${prefix}budgets:${c.id}`, 'spent') === 300_000_000, 'the cost to be counted');
    expect(await field(`${prefix}budgets:${c.id}`, 'reserved')).toBe(0);
  });

  it('seeds only a counter Redis does not hold: a second gateway starting does not count its ledger again', async () => {
    const prefix = freshPrefix();
    const c = counter(1);
    const first = store({ prefix });
    const second = store({ prefix });
    await first.seed(c, 0.5);
    await second.seed(c, 0.5);
    expect(await field(`${prefix}budgets:${c.id}`, 'spent')).toBe(500_000_000);
    (await ok(second.reserve([c], 0.4, Date.now()))).settle(0.4);
    // Counted twice, the spend would be 1.4 and this refused.
    (await ok(first.reserve([c], 0.01, Date.now()))).settle(0.1);
    expect(await first.reserve([c], 0.01, Date.now())).toMatchObject({ ok: false, index: 0, spent: 1 });
    // A counter a reservation made (the seeding gateway restarted while the others went on) is not seeded either.
    const used = counter(1);
    (await ok(first.reserve([used], 0, Date.now()))).settle(0);
    await second.seed(used, 0.7);
    expect(await field(`${prefix}budgets:${used.id}`, 'spent')).toBe(0);
  });

  it('keys live under the prefix until a while after their period ends', async () => {
    const prefix = freshPrefix();
    const s = store({ prefix });
    const c = counter(5, Date.now() + 60_000);
    (await ok(s.reserve([c], 0.1, Date.now()))).settle(0.1);
    await until(async () => await field(`${prefix}budgets:${c.id}`, 'spent') === 100_000_000, 'the cost to be counted');
    for (const key of [`${prefix}budgets:${c.id}`, `${prefix}budgets:${c.id}:held`]) {
      const ttl = Number(await redis.command('PTTL', key));
      // -2: no such key (the held set empties when its one reservation is settled); else the period's minute and the hour after.
      expect(ttl === -2 || (ttl > 3_600_000 && ttl <= 3_660_000)).toBe(true);
    }
    expect(Number(await redis.command('PTTL', `${prefix}budgets:${c.id}`))).toBeGreaterThan(3_600_000);
  });

  it("a session's keys live a day (and the hour after) from its last admitted request, not from a refused one", async () => {
    const prefix = freshPrefix();
    const s = store({ prefix });
    const day = 86_400_000;
    const id = `shared:${process.pid}:${++serial}:session:a`;
    const at = (lastUsed: number): BudgetCounter => ({ id, usd: 1, resetsAt: lastUsed + day, session: true });
    const pttl = async () => Number(await redis.command('PTTL', `${prefix}budgets:${id}`));
    // Admitted as if its last request were 20 hours ago: its keys live about 4 hours and the hour after.
    const then = Date.now() - 20 * 3_600_000;
    (await ok(s.reserve([at(then)], 0, Date.now()))).settle(1);
    await until(async () => (await field(`${prefix}budgets:${id}`, 'spent')) === 1e9, 'the cost to be counted');
    expect(await pttl()).toBeLessThanOrEqual(5 * 3_600_000);
    // Refused (spent): that moves nothing on.
    expect((await s.reserve([at(Date.now())], 0, Date.now())).ok).toBe(false);
    expect(await pttl()).toBeLessThanOrEqual(5 * 3_600_000);
    // Another session, under its budget: its next request moves its keys on to a day from now.
    const b = (lastUsed: number): BudgetCounter => ({ ...at(lastUsed), id: `${id}-b` });
    (await ok(s.reserve([b(then)], 0, Date.now()))).settle(0.1);
    expect(Number(await redis.command('PTTL', `${prefix}budgets:${id}-b`))).toBeLessThanOrEqual(5 * 3_600_000);
    (await ok(s.reserve([b(Date.now())], 0, Date.now()))).settle(0.1);
    expect(Number(await redis.command('PTTL', `${prefix}budgets:${id}-b`))).toBeGreaterThan(day);
  });

  it('Redis forgetting its scripts (a restart, SCRIPT FLUSH) costs one resend, not a failure', async () => {
    const s = store();
    const c = counter(1);
    (await ok(s.reserve([c], 0.5, Date.now()))).settle(0.5);
    expect(await redis.command('SCRIPT', 'FLUSH')).toBe('OK');
    (await ok(s.reserve([c], 0.5, Date.now()))).settle(0.5);
    expect((await s.reserve([c], 0.5, Date.now())).ok).toBe(false);
  });
});
