/**
 * A per-session budget shared by two gateways through a real redis-server, driven through the
 * official SDKs as Claude Code drives a gateway (its session id in a header on every request):
 * one session's concurrent requests spread over both gateways stop at the budget plus at most one
 * request's largest cost, another session of the same key goes on, and the session's spend
 * outlives a gateway's restart, since Redis holds it (the restarted gateway's ledger seeding
 * nothing on top). Redis killed with a session's requests in progress on both gateways: they finish,
 * the load meanwhile is answered as `state.onRedisDown.budgets` says, and once Redis is back a
 * session's concurrent requests stop at its budget across both again. Then gateways in processes of
 * their own, one killed (SIGKILL) and started again, for a budget per session and one per day.
 */
import type { ChildProcess } from 'node:child_process';
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
import { HAS_REDIS, redisSuite } from '../helpers/redis-server.js';
import { GATEWAY_KEY, startGateway, testConfig, withoutRetries } from '../helpers/start-gateway.js';
import { gatewayProcessArgs, spawnGateway } from '../helpers/spawn-gateway.js';
import { sharedStateWorld } from '../helpers/shared-state-world.js';
import { waitFor } from '../helpers/wait-for.js';

const PROCESS_TEST_MS = 60_000;
const PRICE = { input: 3, output: 15 };
/** What each request asks for, and what the upstream says each used: $0.01503 at PRICE. */
const MAX_TOKENS = 1000;
const USAGE = { input_tokens: 10, output_tokens: 1000 };
const COST = (USAGE.input_tokens * PRICE.input + USAGE.output_tokens * PRICE.output) / 1e6;
/** A request's largest cost: its output cap, and its body's bytes at four a token (a little over $0.015). */
const MAX_COST = 0.0152;
const BUDGET = 0.1;
/** A session id with the characters a counter's id escapes (`:` and `%`), as the other gateway must escape them too. */
const SESSION = 'claude:session%1';
const OTHER = 'claude-session-2';

const world = sharedStateWorld();
const { children, running } = world;

const answering = (_req: unknown, res: ServerResponse) => sendJson(res, 200, { ...messageJson('claude-upstream'), usage: USAGE });
/** Upstream answers held until `release()`, so that requests stay in progress. */
function holdAnswers(): { release: () => void } {
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  world.upstream.always(async (req, res) => {
    await gate;
    answering(req, res);
  });
  return { release };
}

let prefixes = 0;
/**
 * Group `dev` with a budget of BUDGET per session (and a day's far above it), or per day, its state in the test
 * Redis under a prefix of its own.
 */
function budgetConfig(per: 'session' | 'day' = 'session', state: Record<string, unknown> = {}): WrittenConfig {
  const base = withoutRetries(testConfig(world.upstream.url));
  return {
    ...base,
    server: { timeZone: 'UTC' },
    models: { ...base.models, 'claude-test': { provider: 'anthropic', upstreamModel: 'claude-upstream', price: PRICE } },
    keyGroups: { dev: { keys: [GATEWAY_KEY], budget: per === 'session' ? [{ usd: BUDGET, per: 'session' }, { usd: 100, per: 'day' }] : { usd: BUDGET, per: 'day' } } },
    state: { redis: world.redis.url, keyPrefix: `e2e-session-budgets-${process.pid}-${prefixes++}:`, ...state },
  } as WrittenConfig;
}
const prefixOf = (config: WrittenConfig) => (config.state as { keyPrefix: string }).keyPrefix;

/** One request in `session` (none: no header) through the Anthropic SDK: its status, with the error's type and message when refused. */
async function inSession(url: string, session: string | undefined): Promise<{ status: number; type?: string; message?: string }> {
  const sdk = new Anthropic({ baseURL: url, apiKey: GATEWAY_KEY, maxRetries: 0, ...(session ? { defaultHeaders: { 'x-claude-code-session-id': session } } : {}) });
  try {
    await sdk.messages.create({ model: 'claude-test', max_tokens: MAX_TOKENS, messages: [{ role: 'user', content: 'hi' }] });
    return { status: 200 };
  } catch (err) {
    // Anything but an answer in the caller's shape (a reset connection, a crash) fails the test here.
    if (!(err instanceof Anthropic.APIError) || err.status === undefined) throw err;
    return { status: err.status, type: (err.error as { error?: { type?: string } } | undefined)?.error?.type ?? '', message: err.message };
  }
}

/** The same through the OpenAI SDK (Codex names its session `session_id`), translated to Messages upstream. */
async function chatInSession(url: string, session: string): Promise<{ status: number; code?: string | null | undefined }> {
  const sdk = new OpenAI({ baseURL: `${url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0, defaultHeaders: { session_id: session } });
  try {
    await sdk.chat.completions.create({ model: 'claude-test', max_tokens: MAX_TOKENS, messages: [{ role: 'user', content: 'hi' }] });
    return { status: 200 };
  } catch (err) {
    if (!(err instanceof OpenAI.APIError) || err.status === undefined) throw err;
    return { status: err.status, code: err.code };
  }
}

/** A counter in Redis: its spend and reservations in dollars, how many reservations it holds, and how long it lives. */
async function counterAt(key: string): Promise<{ spent: number; reserved: number; held: number; ttlMs: number }> {
  const observer = new Redis(world.redis.url);
  try {
    const [spent, reserved] = await observer.hmget(key, 'spent', 'reserved');
    return { spent: Number(spent ?? 0) / 1e9, reserved: Number(reserved ?? 0) / 1e9, held: await observer.zcard(`${key}:held`), ttlMs: await observer.pttl(key) };
  } finally {
    observer.disconnect();
  }
}
/** A session's counter (as plan.ts writes a session into a counter's id). */
const sessionCounterOf = (config: WrittenConfig, session: string) =>
  counterAt(`${prefixOf(config)}budgets:group:dev:session:${session.replace(/%/g, '%25').replace(/:/g, '%3A')}`);
/** The group's day counter (the only one a test's prefix holds). */
async function dayCounterOf(config: WrittenConfig) {
  const observer = new Redis(world.redis.url);
  const keys = await observer.keys(`${prefixOf(config)}budgets:group:dev:day@UTC:*`).finally(() => observer.disconnect());
  return counterAt(keys.find((k) => !k.endsWith(':held')) ?? `${prefixOf(config)}budgets:none`);
}

/** Until every request sent has been logged, which a gateway does once its response closed and its reservation was settled. */
const quiet = (gateways: readonly { lines(): string[] }[], sent: number) => waitFor(() => gateways.reduce((n, g) => n + g.lines().length, 0) === sent, 'every request to be logged');

/** A gateway in a process of its own on the config in `file` (test/helpers/gateway-process.ts), with a ledger in `ledger` when given. */
async function gatewayProcess(file: string, ledger?: string): Promise<{ url: string; child: ChildProcess; lines(): string[] }> {
  const { child, output, url } = spawnGateway(gatewayProcessArgs(file, 30_000, ledger), children, PROCESS_TEST_MS - 20_000);
  return { url: await url, child, lines: () => output().split('\n').filter((l) => /^\d\d:\d\d:\d\d /.test(l)) };
}

/**
 * Requests all at once in `session` (none: no header), spread over `urls`: how many were served, having checked
 * that the rest were refused by the budget, its message saying `which`.
 */
async function spendAtOnce(urls: readonly string[], count: number, session: string | undefined, which: string): Promise<number> {
  const answers = await Promise.all(Array.from({ length: count }, (_, i) => inSession(urls[i % urls.length]!, session)));
  const served = answers.filter((x) => x.status === 200).length;
  // Alone, each gateway would have served 7 ($0.09 spent before the seventh).
  expect(served).toBeGreaterThanOrEqual(6);
  expect(served).toBeLessThanOrEqual(7);
  expect(served * COST).toBeLessThanOrEqual(BUDGET + MAX_COST);
  const refused = answers.filter((x) => x.status !== 200);
  expect(refused.every((x) => x.status === 429 && x.type === 'rate_limit_error')).toBe(true);
  expect(refused[0]?.message).toContain(which);
  return served;
}
const SESSION_REFUSAL = `per session in this session (${SESSION})`;

describe.skipIf(!HAS_REDIS)(redisSuite('a per-session budget two gateways share through Redis'), () => {
  it('stops one session at its budget plus at most one request across both gateways, leaves another session alone, and outlives a restart', async () => {
    world.upstream.always(answering);
    const config = budgetConfig();
    const ledger = world.scratchDir('mgw-shared-session-');
    // One gateway keeps a ledger (which its restart reads back), the other does not.
    const a = await startGateway(config, { ledgerDir: ledger });
    const b = await startGateway(config);
    running.push(a, b);

    // One session's requests, all at once, spread over both gateways.
    const served = await spendAtOnce([a.url, b.url], 30, SESSION, SESSION_REFUSAL);
    await quiet([a, b], 30);
    expect(world.upstream.received).toHaveLength(served);
    await waitFor(async () => (await sessionCounterOf(config, SESSION)).held === 0, 'every reservation to be settled');
    const counter = await sessionCounterOf(config, SESSION);
    expect(counter.spent).toBeCloseTo(served * COST, 9);
    expect(counter.reserved).toBe(0);
    // Kept a day after its last request (and the hour after), not for ever.
    expect(counter.ttlMs).toBeGreaterThan(86_400_000);
    expect(counter.ttlMs).toBeLessThanOrEqual(25 * 3_600_000);

    // The same session is refused on both, whichever SDK asks; another session of the same key, and a request naming none, go on.
    expect(await inSession(a.url, SESSION)).toMatchObject({ status: 429 });
    expect(await chatInSession(b.url, SESSION)).toEqual({ status: 429, code: 'budget_exceeded' });
    expect(await inSession(b.url, OTHER)).toEqual({ status: 200 });
    expect(await chatInSession(a.url, OTHER)).toEqual({ status: 200 });
    expect(await inSession(a.url, undefined)).toEqual({ status: 200 });
    await quiet([a, b], 30 + 5);
    expect((await sessionCounterOf(config, OTHER)).spent).toBeCloseTo(2 * COST, 9);

    // Gateway a restarts (its ledger holds its share of the session's spend): Redis's counter is kept, not added to.
    running.splice(running.indexOf(a), 1);
    await a.close();
    const again = await startGateway(config, { ledgerDir: ledger });
    running.push(again);
    expect(await sessionCounterOf(config, SESSION)).toMatchObject({ spent: expect.closeTo(served * COST, 9), reserved: 0 });
    expect(await inSession(again.url, SESSION)).toMatchObject({ status: 429, type: 'rate_limit_error' });
    expect(await inSession(b.url, SESSION)).toMatchObject({ status: 429 });
    expect(await inSession(again.url, OTHER)).toEqual({ status: 200 });
    await waitFor(async () => (await sessionCounterOf(config, OTHER)).held === 0, 'the other session to settle');
    expect((await sessionCounterOf(config, OTHER)).spent).toBeCloseTo(3 * COST, 9);
    expect((await sessionCounterOf(config, SESSION)).spent).toBeCloseTo(served * COST, 9);
  });

  for (const policy of [undefined, 'open'] as const) {
    it(`Redis killed with a session's requests in progress on both (onRedisDown.budgets ${policy ?? 'unset: closed'}): they finish, ${policy === 'open' ? 'each gateway counts on its own' : "503 in the caller's shape"} meanwhile, and the session budget holds across both again once Redis is back`, async () => {
      const config = budgetConfig('session', { commandTimeoutMs: 300, ...(policy ? { onRedisDown: { budgets: policy } } : {}) });
      const a = await startGateway(config);
      const b = await startGateway(config);
      running.push(a, b);
      const urls = [a.url, b.url];

      // Six requests of the session in progress, three through each gateway, when Redis dies.
      const held = holdAnswers();
      const inProgress = Array.from({ length: 6 }, (_, i) => inSession(urls[i % 2]!, SESSION));
      await waitFor(async () => (await sessionCounterOf(config, SESSION)).held === 6, 'the six to reserve');
      await world.redis.kill();
      held.release();
      // Finished, not cut, whatever their settling meets.
      expect(await Promise.all(inProgress)).toEqual(Array(6).fill({ status: 200 }));
      world.upstream.always(answering);

      // Load meanwhile, on both: each answer in the caller's shape, as the policy says.
      const during = await Promise.all(Array.from({ length: 10 }, (_, i) => inSession(urls[i % 2]!, OTHER)));
      // Open: five each, well under what a gateway's own counter of the session allows.
      if (policy === 'open') expect(during).toEqual(Array(10).fill({ status: 200 }));
      else expect(during.every((x) => x.status === 529 && x.type === 'overloaded_error')).toBe(true);
      await quiet([a, b], 16);

      // Redis back (empty, on the same port): a session's requests all at once stop at its budget across both again.
      await world.redis.restart();
      for (const gw of [a, b]) await waitFor(() => /answers again/.test(gw.output.join('')), 'the gateway to see Redis back');
      const fresh = 'claude-session-after-outage';
      const served = await spendAtOnce(urls, 30, fresh, `per session in this session (${fresh})`);
      await waitFor(async () => (await sessionCounterOf(config, fresh)).held === 0, 'every reservation to be settled');
      expect((await sessionCounterOf(config, fresh)).spent).toBeCloseTo(served * COST, 9);
      for (const gw of [a, b]) {
        const text = gw.output.join('');
        expect(text.match(/cannot be reached/g)).toHaveLength(1);
        expect(text.match(/answers again/g)).toHaveLength(1);
      }
    });
  }

  const processCases = [
    { per: 'session', session: SESSION, refusal: SESSION_REFUSAL, counter: (c: WrittenConfig) => sessionCounterOf(c, SESSION) },
    { per: 'day', session: undefined, refusal: 'per day', counter: dayCounterOf },
  ] as const;
  for (const { per, session, refusal, counter } of processCases) {
    it(`two gateway processes, a budget per ${per}: stopped at the budget across both, and still when one is killed (SIGKILL) and started again`, async () => {
      world.upstream.always(answering);
      const config = budgetConfig(per);
      const dir = world.scratchDir('mgw-session-processes-');
      const file = join(dir, 'gateway.config.json');
      writeFileSync(file, JSON.stringify(config));
      const ledger = join(dir, 'usage');
      const [a, b] = await Promise.all([gatewayProcess(file, ledger), gatewayProcess(file)]);

      const served = await spendAtOnce([a.url, b.url], 30, session, refusal);
      await quiet([a, b], 30);
      expect(world.upstream.received).toHaveLength(served);
      await waitFor(async () => (await counter(config)).held === 0, 'every reservation to be settled');
      expect((await counter(config)).spent).toBeCloseTo(served * COST, 9);

      // Killed outright, then started again on its ledger: still spent, on both, and no more than it was.
      a.child.kill('SIGKILL');
      const again = await gatewayProcess(file, ledger);
      expect(await inSession(again.url, session)).toMatchObject({ status: 429, type: 'rate_limit_error' });
      expect(await inSession(b.url, session)).toMatchObject({ status: 429, type: 'rate_limit_error' });
      if (per === 'session') {
        expect(await inSession(again.url, OTHER)).toEqual({ status: 200 });
        await waitFor(async () => (await sessionCounterOf(config, OTHER)).spent > 0, 'the other session to be settled');
        expect((await sessionCounterOf(config, OTHER)).spent).toBeCloseTo(COST, 9);
      }
      expect(await counter(config)).toMatchObject({ spent: expect.closeTo(served * COST, 9), reserved: 0, held: 0 });
      for (const c of [again.child, b.child]) c.kill('SIGTERM');
    }, PROCESS_TEST_MS);
  }
});
