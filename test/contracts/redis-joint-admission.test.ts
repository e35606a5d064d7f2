/**
 * A request's limits and budgets decided together in Redis (state/admission.ts), against a real
 * redis-server: one script at admission and one at the end (counted in the server's statistics), a refusal by either taking nothing from
 * the other, and each store asked alone behind its own policy while Redis is down.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetStoreDown, type BudgetCounter } from '#src/budgets/budget-store.js';
import { sharedBudgetStore } from '#src/budgets/shared-store.js';
import type { GroupLimits, OnRedisDown } from '#src/config/types.js';
import { LimitStoreDown } from '#src/limits/limit-store.js';
import { sharedLimitStore } from '#src/limits/shared-store.js';
import { type JointDecision, type JointStore, jointStore } from '#src/state/admission.js';
import { HAS_REDIS, redisSuite, resetStats, scriptsRun, startRedis, testRedisConnections, type TestRedis } from '../helpers/redis-server.js';

let redis: TestRedis;
const { connection, freshPrefix, closeAll } = testRedisConnections(() => redis);
const closers: (() => void)[] = [];

/** A gateway's two Redis stores under `prefix` and their joint admission; `connection` to mark Redis down. */
function gateway(prefix: string, policy: { limits: OnRedisDown; budgets: OnRedisDown } = { limits: 'closed', budgets: 'closed' }) {
  const c = connection();
  const state = { keyPrefix: prefix, onRedisDown: policy };
  const limits = sharedLimitStore(c, state);
  const budgets = sharedBudgetStore(c, state);
  closers.push(limits.close, budgets.close);
  return { joint: jointStore(c, { limits: limits.redis, budgets: budgets.redis }, { limits, budgets }), connection: c };
}

let serial = 0;
const counter = (usd: number): BudgetCounter => ({ id: `joint:${process.pid}:${++serial}`, usd, resetsAt: Date.now() + 3_600_000 });
const admitted = async (d: Promise<JointDecision>) => {
  const decision = await d;
  if (!decision.ok) throw new Error(`refused: ${JSON.stringify(decision)}`);
  return decision;
};
/** A field of a hash as a number (NaN when absent), and a sorted set's size, seen from outside. */
let observer: Redis;
const field = async (key: string, name: string) => Number((await observer.hget(key, name)) ?? Number.NaN);
const card = async (key: string) => Number(await redis.command('ZCARD', key));
const until = async (check: () => Promise<boolean>, what: string) => {
  const end = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

if (HAS_REDIS) {
  beforeAll(async () => {
    redis = await startRedis();
    observer = new Redis(redis.url);
  });
  afterAll(async () => {
    observer?.disconnect();
    for (const close of closers) close();
    await closeAll();
    await redis?.stop();
  });
}

describe.skipIf(!HAS_REDIS)(redisSuite('limits and budgets decided together in Redis'), () => {
  const limits: GroupLimits = { requestsPerMinute: 100, concurrentRequests: 10, tokensPerMinute: 1_000_000 };

  it('one command admits and reserves, one ends and settles', async () => {
    const prefix = freshPrefix();
    const { joint } = gateway(prefix);
    const c = counter(100);
    // The first call of each script sends it whole; the counted ones go by its digest.
    const warm = await admitted(joint.admit('g', limits, { counters: [c], usd: 0.5 }));
    warm.reservation.settle(0.1);
    warm.admission.end(10);
    await until(async () => (await field(`${prefix}budgets:${c.id}`, 'reserved')) === 0, 'the first request to settle');

    await resetStats(redis.url);
    const d = await admitted(joint.admit('g', limits, { counters: [c], usd: 0.5 }));
    expect(await scriptsRun(redis.url)).toBe(1);
    expect(await card(`${prefix}limits:{g}:slots`)).toBe(1);
    expect(await field(`${prefix}budgets:${c.id}`, 'reserved')).toBe(500_000_000);
    // The pipeline ends both in the same turn, the settling first.
    d.reservation.settle(0.2);
    d.admission.end(30);
    await until(async () => (await field(`${prefix}budgets:${c.id}`, 'reserved')) === 0, 'the request to settle');
    expect(await card(`${prefix}limits:{g}:slots`)).toBe(0);
    expect(await field(`${prefix}budgets:${c.id}`, 'spent')).toBe(300_000_000);
    expect(await scriptsRun(redis.url)).toBe(2);
  });

  it("a limit's refusal reserves nothing; a budget's refusal takes no request of the minute and no slot", async () => {
    const prefix = freshPrefix();
    const { joint } = gateway(prefix);
    const oneAMinute: GroupLimits = { requestsPerMinute: 1, concurrentRequests: 1 };
    const spent = counter(1);
    await gateway(prefix).joint.admit('other', {}, { counters: [spent], usd: 0 }).then((d) => d.ok && d.reservation.settle(1));
    await until(async () => (await field(`${prefix}budgets:${spent.id}`, 'spent')) === 1e9, 'the spend to be counted');

    // Refused by the budget: the group's one request of the minute and its one slot are still free.
    expect(await joint.admit('g', oneAMinute, { counters: [spent], usd: 0.5 })).toMatchObject({ ok: false, by: 'budget', decision: { index: 0, spent: 1 } });
    expect(await card(`${prefix}limits:{g}:slots`)).toBe(0);
    const fresh = counter(10);
    const d = await admitted(joint.admit('g', oneAMinute, { counters: [fresh], usd: 0.5 }));

    // Refused by a limit (the slot, then the minute): nothing more reserved on the budget.
    expect(await joint.admit('g', oneAMinute, { counters: [fresh], usd: 0.5 })).toMatchObject({ ok: false, by: 'limit', decision: { limit: 'concurrentRequests' } });
    d.reservation.settle(0);
    d.admission.end(0);
    await until(async () => (await card(`${prefix}limits:{g}:slots`)) === 0, 'the slot to be given back');
    expect(await joint.admit('g', oneAMinute, { counters: [fresh], usd: 0.5 })).toMatchObject({ ok: false, by: 'limit', decision: { limit: 'requestsPerMinute' } });
    expect(await field(`${prefix}budgets:${fresh.id}`, 'reserved')).toBe(0);
    expect(await card(`${prefix}budgets:${fresh.id}:held`)).toBe(0);
  });

  // Each row: the policies, and what an admission while Redis is down comes to.
  const whileDown: { policy: { limits: OnRedisDown; budgets: OnRedisDown }; outcome: 'admitted' | typeof LimitStoreDown | typeof BudgetStoreDown }[] = [
    { policy: { limits: 'open', budgets: 'open' }, outcome: 'admitted' },
    { policy: { limits: 'closed', budgets: 'open' }, outcome: LimitStoreDown },
    { policy: { limits: 'open', budgets: 'closed' }, outcome: BudgetStoreDown },
  ];
  for (const { policy, outcome } of whileDown) {
    it(`Redis down, limits ${policy.limits} and budgets ${policy.budgets}: ${outcome === 'admitted' ? 'admitted in memory' : outcome.name}`, async () => {
      const g = gateway(freshPrefix(), policy);
      g.connection.failed(new Error('gone for the test'));
      const one: GroupLimits = { concurrentRequests: 1 };
      const ask = (j: JointStore) => j.admit('g', one, { counters: [counter(1)], usd: 0.5 });
      if (outcome === 'admitted') {
        const d = await admitted(ask(g.joint));
        // In this gateway's memory: its one concurrent request is taken until it ends.
        expect(await ask(g.joint)).toMatchObject({ ok: false, by: 'limit' });
        d.admission.end(0);
        d.reservation.settle(0);
        await admitted(ask(g.joint));
        return;
      }
      await expect(ask(g.joint)).rejects.toBeInstanceOf(outcome);
      // An admission made in memory before its reservation failed was ended: the next one fails the same way, not on the limit.
      await expect(ask(g.joint)).rejects.toBeInstanceOf(outcome);
    });
  }
});
