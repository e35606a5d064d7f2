/**
 * The LimitStore contract over the Redis store, against a real redis-server; then what only a
 * shared store has to do: several gateways' clients asking at once, Redis's own clock, slots
 * that expire when their gateway stops pushing them back, and Redis forgetting its scripts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupLimits } from '#src/config/types.js';
import type { Decision, LimitStore } from '#src/limits/limit-store.js';
import { createRedisLimitStore, type RedisLimitStore } from '#src/limits/redis-store.js';
import type { RedisConnection } from '#src/state/redis-connection.js';
import { HAS_REDIS, redisSuite, startRedis, testRedisConnections, type TestRedis } from '../helpers/redis-server.js';
import { runLimitStoreContract } from './limit-store.contract.js';

let redis: TestRedis;
const stores: RedisLimitStore[] = [];
const { connection, freshPrefix, closeAll } = testRedisConnections(() => redis);

function store(options: { prefix?: string; clock?: () => number; slotTtlMs?: number; via?: RedisConnection } = {}): RedisLimitStore {
  const s = createRedisLimitStore({
    connection: options.via ?? connection(),
    keyPrefix: options.prefix ?? freshPrefix(),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.slotTtlMs !== undefined ? { slotTtlMs: options.slotTtlMs } : {}),
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
  // One connection for the contract's stores, each under a prefix of its own.
  let shared: RedisConnection | undefined;
  const sharedConnection = () => {
    shared ??= connection();
    return shared;
  };
  runLimitStoreContract('redis', { newStore: (clock) => store({ clock, via: sharedConnection() }), async: true });
}

const ok = async (d: Decision | Promise<Decision>) => {
  const decision = await d;
  if (!decision.ok) throw new Error(`refused: ${JSON.stringify(decision)}`);
  return decision.admission;
};
const settle = (d: Promise<Decision>) => d.then((x) => x.ok);
const until = async (check: () => Promise<boolean>, what: string) => {
  const end = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe.skipIf(!HAS_REDIS)(redisSuite('the Redis limit store, shared by several gateways'), () => {
  // Each row: a group's limit, and how many of many requests asked at once from 3 gateways' clients it admits.
  const atOnce: { name: string; limits: GroupLimits; asked: number; admits: number }[] = [
    { name: 'requestsPerMinute', limits: { requestsPerMinute: 20 }, asked: 90, admits: 20 },
    { name: 'concurrentRequests', limits: { concurrentRequests: 7 }, asked: 60, admits: 7 },
    { name: 'both', limits: { requestsPerMinute: 12, concurrentRequests: 5 }, asked: 60, admits: 5 },
  ];
  for (const { name, limits, asked, admits } of atOnce) {
    it(`${name}: ${asked} requests asked at once through 3 clients admit exactly ${admits}`, async () => {
      const prefix = freshPrefix();
      const gateways: LimitStore[] = [store({ prefix }), store({ prefix }), store({ prefix })];
      const answers = await Promise.all(Array.from({ length: asked }, (_, i) => settle(gateways[i % 3]!.admit('team', limits, Date.now()) as Promise<Decision>)));
      expect(answers.filter(Boolean)).toHaveLength(admits);
    });
  }

  it("on Redis's clock: a burst up to the limit, then refused for about a minute's share", async () => {
    const s = store();
    // The `now` given is ignored: a gateway whose clock is an hour off agrees with the others.
    for (let i = 0; i < 4; i++) await ok(s.admit('g', { requestsPerMinute: 4 }, Date.now() + 3_600_000));
    const no = await s.admit('g', { requestsPerMinute: 4 }, 0);
    expect(no).toMatchObject({ ok: false, limit: 'requestsPerMinute', value: 4 });
    const wait = (no as Extract<Decision, { ok: false }>).retryAfterMs;
    expect(wait).toBeGreaterThan(14_000);
    expect(wait).toBeLessThanOrEqual(15_000);
  });

  it("a slot held by a gateway that stopped (no end, no push back) expires; one still pushed back does not", async () => {
    const prefix = freshPrefix();
    const limits = { concurrentRequests: 1 };
    const crashed = store({ prefix, slotTtlMs: 400 });
    await ok(crashed.admit('g', limits, 0));
    const other = store({ prefix, slotTtlMs: 400 });
    expect((await other.admit('g', limits, 0)).ok).toBe(false);
    // The first gateway stops pushing its slot back, as a killed process does.
    crashed.close();
    const freed = async () => {
      const d = await other.admit('g', limits, 0);
      if (d.ok) d.admission.end(0);
      return d.ok;
    };
    await until(freed, 'the slot to expire');

    // A living gateway's slot outlives its lifetime many times over: pushed back each third of it.
    const living = store({ prefix, slotTtlMs: 300 });
    const held = await ok(living.admit('g', limits, 0));
    await new Promise((r) => setTimeout(r, 1200));
    expect((await other.admit('g', limits, 0)).ok).toBe(false);
    held.end(0);
    await until(async () => (await other.admit('g', limits, 0)).ok, 'the ended slot to be free');
  });

  it('Redis forgetting its scripts (a restart, SCRIPT FLUSH) costs one resend, not a failure', async () => {
    const s = store();
    await ok(s.admit('g', { requestsPerMinute: 2 }, 0));
    expect(await redis.command('SCRIPT', 'FLUSH')).toBe('OK');
    await ok(s.admit('g', { requestsPerMinute: 2 }, 0));
    expect((await s.admit('g', { requestsPerMinute: 2 }, 0)).ok).toBe(false);
  });

  it('keys live under the prefix, and expire once nothing is in progress', async () => {
    const prefix = freshPrefix();
    const s = store({ prefix });
    (await ok(s.admit('g', { requestsPerMinute: 60, concurrentRequests: 2, tokensPerMinute: 1000 }, 0))).end(10);
    await until(async () => Number(await redis.command('EXISTS', `${prefix}limits:{g}:tpm`)) === 1, 'the tokens to be filed');
    for (const key of ['rpm', 'slots', 'tpm']) {
      const ttl = Number(await redis.command('PTTL', `${prefix}limits:{g}:${key}`));
      // -2: no such key (the slot set empties when its one slot ends); else an expiry within a minute and a second.
      expect(ttl === -2 || (ttl > 0 && ttl <= 61_000)).toBe(true);
    }
  });
});
