/**
 * Several gateways spending one key group's budget through a real redis-server, driven through the
 * official SDKs: concurrent requests through two gateways stop at the budget plus at most one
 * request's largest cost; Redis killed and brought back under each `state.onRedisDown.budgets`
 * policy (closed by default); and a gateway killed with a reservation held, which then expires.
 */
import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import { messageJson } from '../helpers/canned.js';
import { sendJson } from '../helpers/fake-upstream.js';
import type { Received } from '../helpers/received.js';
import { HAS_REDIS, redisSuite, resetStats, scriptsRun } from '../helpers/redis-server.js';
import { GATEWAY_KEY, startGateway, testConfig, type TestGateway, withoutRetries } from '../helpers/start-gateway.js';
import { gatewayProcessArgs, spawnGateway } from '../helpers/spawn-gateway.js';
import { sharedStateWorld } from '../helpers/shared-state-world.js';
import { waitFor } from '../helpers/wait-for.js';

const PRICE = { input: 3, output: 15 };
/** What each request asks for, and what the upstream says each used: $0.01503 at PRICE. */
const MAX_TOKENS = 1000;
const USAGE = { input_tokens: 10, output_tokens: 1000 };
const COST = (USAGE.input_tokens * PRICE.input + USAGE.output_tokens * PRICE.output) / 1e6;
/** A request's largest cost: its output cap, and its body's bytes at four a token (a little over $0.015). */
const MAX_COST = 0.0152;

const world = sharedStateWorld();
const { children, running } = world;

/** Answers every Messages call with `usage`, once `gate` opens. */
function answering(gate?: Promise<void>, usage: typeof USAGE = USAGE) {
  return async (_req: Received, res: ServerResponse) => {
    if (gate) await gate;
    sendJson(res, 200, { ...messageJson('claude-upstream'), usage });
  };
}
/** Upstream answers held until `release()`, so that requests stay in progress. */
function holdAnswers(usage: typeof USAGE = USAGE): { release: () => void } {
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  world.upstream.always(answering(gate, usage));
  return { release };
}

let prefixes = 0;
/** Group `dev` with a budget of `usd` a day, its state in the test Redis under a prefix of its own. */
function budgetConfig(usd: number, state: Record<string, unknown> = {}): WrittenConfig {
  const base = withoutRetries(testConfig(world.upstream.url));
  return {
    ...base,
    server: { timeZone: 'UTC' },
    models: { ...base.models, 'claude-test': { provider: 'anthropic', upstreamModel: 'claude-upstream', price: PRICE } },
    keyGroups: { dev: { keys: [GATEWAY_KEY], budget: { usd, per: 'day' } } },
    state: { redis: world.redis.url, keyPrefix: `e2e-budgets-${process.pid}-${prefixes++}:`, ...state },
  } as WrittenConfig;
}
const prefixOf = (config: WrittenConfig) => (config.state as { keyPrefix: string }).keyPrefix;

const user = [{ role: 'user' as const, content: 'hi' }];
/** One request through the Anthropic SDK: its HTTP status, with the error's type when it failed. */
async function ask(url: string): Promise<{ status: number; type?: string }> {
  try {
    await new Anthropic({ baseURL: url, apiKey: GATEWAY_KEY, maxRetries: 0 }).messages.create({ model: 'claude-test', max_tokens: MAX_TOKENS, messages: user });
    return { status: 200 };
  } catch (err) {
    // Anything but an answer in the caller's shape (a reset connection, a crash) fails the test here.
    if (!(err instanceof Anthropic.APIError) || err.status === undefined) throw err;
    return { status: err.status, type: (err.error as { error?: { type?: string } } | undefined)?.error?.type ?? '' };
  }
}
/** The same through the OpenAI SDK (the gateway translates): status and error code. */
async function chat(url: string): Promise<{ status: number; code?: string | null | undefined }> {
  try {
    await new OpenAI({ baseURL: `${url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 }).chat.completions.create({ model: 'claude-test', max_tokens: MAX_TOKENS, messages: user });
    return { status: 200 };
  } catch (err) {
    if (!(err instanceof OpenAI.APIError) || err.status === undefined) throw err;
    return { status: err.status, code: err.code };
  }
}

/** The group's day counter in Redis: its spend and reservations in dollars, and how many reservations it holds. */
async function counterOf(config: WrittenConfig): Promise<{ spent: number; reserved: number; held: number }> {
  const observer = new Redis(world.redis.url);
  try {
    const keys = (await observer.keys(`${prefixOf(config)}budgets:group:dev:day@UTC:*`)).filter((k) => !k.endsWith(':held'));
    if (keys.length === 0) return { spent: 0, reserved: 0, held: 0 };
    const [spent, reserved] = await observer.hmget(keys[0]!, 'spent', 'reserved');
    const held = await observer.zcard(`${keys[0]!}:held`);
    return { spent: Number(spent ?? 0) / 1e9, reserved: Number(reserved ?? 0) / 1e9, held };
  } finally {
    observer.disconnect();
  }
}

/** Until every request sent has been logged, which a gateway does once its response closed and its reservation was settled. */
const quiet = (gateways: readonly TestGateway[], sent: number) => waitFor(() => gateways.reduce((n, g) => n + g.lines().length, 0) === sent, 'every request to be logged');

const PROCESS_TEST_MS = 60_000;

describe.skipIf(!HAS_REDIS)(redisSuite('budgets several gateways share through Redis'), () => {
  it('two gateways spending one group budget of $0.10 stop at $0.10 plus at most one request, under concurrent load', async () => {
    world.upstream.always(answering());
    const config = budgetConfig(0.1);
    const gateways = [await startGateway(config), await startGateway(config)];
    running.push(...gateways);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => ask(gateways[i % 2]!.url)));
    await quiet(gateways, answers.length);
    const served = answers.filter((a) => a.status === 200).length;
    // Alone, each gateway would have served 7 ($0.09 spent before the seventh).
    expect(served).toBeGreaterThanOrEqual(6);
    expect(served).toBeLessThanOrEqual(7);
    expect(served * COST).toBeLessThanOrEqual(0.1 + MAX_COST);
    expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 429 && a.type === 'rate_limit_error')).toBe(true);
    expect(world.upstream.received).toHaveLength(served);
    // Redis holds the total, every reservation settled.
    await waitFor(async () => (await counterOf(config)).held === 0, 'every reservation to be settled');
    const counter = await counterOf(config);
    expect(counter.spent).toBeCloseTo(served * COST, 9);
    expect(counter.reserved).toBe(0);
    // Both gateways now refuse, whichever is asked.
    for (const g of gateways) expect((await ask(g.url)).status).toBe(429);
  });

  it('a group with limits and a budget: one command to Redis at admission and one at the end, a limit refusal reserving nothing', async () => {
    world.upstream.always(answering());
    const base = budgetConfig(0.1);
    const config = { ...base, keyGroups: { dev: { ...base.keyGroups!.dev!, limits: { requestsPerMinute: 3, concurrentRequests: 5 } } } } as WrittenConfig;
    const gateways = [await startGateway(config), await startGateway(config)];
    running.push(...gateways);
    await resetStats(world.redis.url);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await chat(gateways[i % 2]!.url));
    expect(answers).toEqual([{ status: 200 }, { status: 200 }, { status: 200 }, { status: 429, code: 'rate_limit_exceeded' }]);
    await quiet(gateways, answers.length);
    await waitFor(async () => (await counterOf(config)).held === 0, 'every reservation to be settled');
    const counter = await counterOf(config);
    expect(counter.spent).toBeCloseTo(3 * COST, 9);
    expect(counter.reserved).toBe(0);
    // Three served, each admitted and reserving in one script and ending in one; the one refused, one script.
    await waitFor(async () => (await scriptsRun(world.redis.url)) >= 7, 'the scripts to be run');
    await new Promise((r) => setTimeout(r, 100));
    expect(await scriptsRun(world.redis.url)).toBe(7);
  });

  const policies = [
    { policy: undefined, whileDown: 'requests with budgets are refused (503)' },
    { policy: 'open', whileDown: "budgets are counted in this gateway's memory" },
  ] as const;
  for (const { policy, whileDown } of policies) {
    it(`Redis killed (onRedisDown.budgets ${policy ?? 'unset: closed'}): ${policy === 'open' ? 'each gateway counts its own spend' : '503 in the caller\'s shape'} meanwhile, and the budget is shared again once Redis is back`, async () => {
      world.upstream.always(answering());
      const config = budgetConfig(0.1, { commandTimeoutMs: 300, ...(policy ? { onRedisDown: { budgets: policy } } : {}) });
      const a = await startGateway(config);
      const b = await startGateway(config);
      running.push(a, b);
      let sent = 0;
      const send = (gw: TestGateway) => {
        sent++;
        return ask(gw.url);
      };
      expect(await send(a)).toEqual({ status: 200 });
      await waitFor(async () => (await counterOf(config)).spent > 0, 'the spend to reach Redis');

      // Redis dies with a request in progress: it is finished, not cut (its settling fails, and is logged as the outage).
      // It reports half the usage, so that its cost tells apart from the others'.
      const held = holdAnswers({ input_tokens: 10, output_tokens: 500 });
      const inProgress = send(b);
      await waitFor(async () => (await counterOf(config)).held === 1, 'the request to reserve');
      await world.redis.kill();
      held.release();
      expect(await inProgress).toEqual({ status: 200 });
      world.upstream.always(answering());
      if (policy === 'open') {
        // This gateway's own counter, from nothing: seven fit under $0.10, the eighth is refused.
        const answers: { status: number; type?: string }[] = [];
        for (let i = 0; i < 8; i++) answers.push(await send(a));
        expect(answers.slice(0, 7).every((x) => x.status === 200)).toBe(true);
        expect(answers[7]).toMatchObject({ status: 429, type: 'rate_limit_error' });
        // The other gateway has its own (its request in progress above was Redis's, not counted here).
        expect(await send(b)).toEqual({ status: 200 });
      } else {
        for (const gw of [a, b]) {
          sent++;
          expect(await chat(gw.url)).toEqual({ status: 503, code: 'budget_store_unavailable' });
          // Anthropic callers get the same refusal in their own shape.
          expect(await send(gw)).toEqual({ status: 529, type: 'overloaded_error' });
        }
      }
      await quiet([a, b], sent);

      // Redis comes back (empty, on the same port): each gateway says so once, and spends in Redis again.
      await world.redis.restart();
      for (const gw of [a, b]) await waitFor(() => /answers again/.test(gw.output.join('')), 'the gateway to see Redis back');
      expect(await send(b)).toEqual({ status: 200 });
      await waitFor(async () => (await counterOf(config)).spent >= COST - 1e-9, 'the spend to reach Redis again');
      // This request's cost; and the one in progress when Redis died, when the client sent its settling again on reconnecting.
      const { spent } = await counterOf(config);
      const late = (10 * PRICE.input + 500 * PRICE.output) / 1e6;
      expect([COST, COST + late].some((usd) => Math.abs(spent - usd) < 1e-9)).toBe(true);

      for (const gw of [a, b]) {
        const text = gw.output.join('');
        expect(text.match(/cannot be reached/g)).toHaveLength(1);
        expect(text).toContain(whileDown);
        expect(text.match(/answers again/g)).toHaveLength(1);
      }
    });
  }

  it("a gateway killed with a reservation held: its reservation expires, and the other gateway's requests start again", async () => {
    // $0.01: one request's reservation (a little over $0.015) alone holds the whole budget.
    const config = budgetConfig(0.01);
    const dir = world.scratchDir('mgw-budgets-config-');
    const file = join(dir, 'gateway.config.json');
    writeFileSync(file, JSON.stringify(config));
    const ttl = 4000;
    const doomed = spawnGateway(gatewayProcessArgs(file, ttl), children, PROCESS_TEST_MS - 15_000);
    const url = await doomed.url;
    const other = await startGateway(config);
    running.push(other);
    const held = holdAnswers();
    try {
      const hanging = ask(url).catch(() => undefined);
      await waitFor(async () => (await counterOf(config)).held === 1, 'the killed gateway to hold its reservation');
      const killedAt = Date.now();
      doomed.child.kill('SIGKILL');
      await hanging;
      held.release();
      world.upstream.always(answering());

      // Its reservation outlives the process: the other gateway is refused...
      expect(await ask(other.url)).toMatchObject({ status: 429, type: 'rate_limit_error' });
      // ...for its lifetime at most (pushed back last before the kill): then it is taken off the counter.
      await new Promise((r) => setTimeout(r, Math.max(0, killedAt + ttl + 100 - Date.now())));
      expect(await ask(other.url)).toEqual({ status: 200 });
      await waitFor(async () => (await counterOf(config)).held === 0, 'nothing to be held');
      expect(await counterOf(config)).toMatchObject({ reserved: 0 });
    } finally {
      held.release();
    }
  }, PROCESS_TEST_MS);
});
