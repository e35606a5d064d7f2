/**
 * Several gateways sharing one key group's limits through a real redis-server, driven through the
 * official SDKs: gateway processes (`serve`, through the real `bin/` launcher: it runs `dist/`, so
 * build first) admitting a group's requests per minute between them; Redis killed mid-load and
 * brought back, under each `state.onRedisDown.limits` policy; and a gateway killed with concurrency
 * slots held, whose slots then expire.
 */
import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import { Redis } from 'ioredis';
import { cannedReply } from '../helpers/canned.js';
import { sendJson } from '../helpers/fake-upstream.js';
import type { Received } from '../helpers/received.js';
import { HAS_REDIS, redisSuite } from '../helpers/redis-server.js';
import { GATEWAY_KEY, startGateway, testConfig, type TestGateway, withoutRetries } from '../helpers/start-gateway.js';
import { gatewayProcessArgs, spawnGateway } from '../helpers/spawn-gateway.js';
import { sharedStateWorld } from '../helpers/shared-state-world.js';
import { waitFor } from '../helpers/wait-for.js';

const REPO = new URL('../..', import.meta.url).pathname;

const world = sharedStateWorld();
const { children, running } = world;

let prefixes = 0;
/** The test config with group `dev` limited and its state in the test Redis, under a prefix of its own. */
function sharedConfig(limits: Record<string, number>, state: Record<string, unknown> = {}): WrittenConfig {
  const base = withoutRetries(testConfig(world.upstream.url));
  return {
    ...base,
    keyGroups: { dev: { keys: [GATEWAY_KEY], limits } },
    state: { redis: world.redis.url, keyPrefix: `e2e-${process.pid}-${prefixes++}:`, ...state },
  } as WrittenConfig;
}

const openai = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
const anthropic = (url: string) => new Anthropic({ baseURL: url, apiKey: GATEWAY_KEY, maxRetries: 0 });
const user = [{ role: 'user' as const, content: 'hi' }];

let sent = 0;
/** One request through the OpenAI SDK: its HTTP status, with the error code when it failed. */
async function chat(url: string): Promise<{ status: number; code?: string | null | undefined }> {
  sent++;
  try {
    await openai(url).chat.completions.create({ model: 'gpt-test', messages: user });
    return { status: 200 };
  } catch (err) {
    // Anything but an answer in the caller's shape (a reset connection, a crash) fails the test here.
    if (!(err instanceof OpenAI.APIError) || err.status === undefined) throw err;
    return { status: err.status, code: err.code };
  }
}

/** Tests with gateways in processes of their own: on a busy machine (the whole suite beside them) they start slowly. */
const PROCESS_TEST_MS = 60_000;

/** A child process, its output so far, and its URL once it printed one. */
/** Upstream answers held until `release()`, so that requests stay in progress. */
function holdAnswers(): { release: () => void } {
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  world.upstream.always(async (req: Received, res: ServerResponse) => {
    await gate;
    cannedReply(req, res);
  });
  return { release };
}

/**
 * Until every request sent to `gateways` has been logged, which a gateway does once its response closed and
 * its admission was ended: a client can read the whole answer a moment before that.
 */
const quiet = (gateways: readonly TestGateway[]) => waitFor(() => gateways.reduce((n, g) => n + g.lines().length, 0) === sent, 'every request to be logged');

/** Connections the gateways hold to the test Redis (each gateway: one for commands, one listening for cool-downs). */
async function connectedClients(): Promise<number> {
  const observer = new Redis(world.redis.url);
  try {
    const list = (await observer.client('LIST')) as string;
    return list.split('\n').filter((line) => / name=model-gateway /.test(line)).length;
  } finally {
    observer.disconnect();
  }
}

/** The Redis key of group `dev`'s concurrency slots under the config's prefix. */
const slotsKey = (config: WrittenConfig) => `${(config.state as { keyPrefix: string }).keyPrefix}limits:{dev}:slots`;
const slotsHeld = (config: WrittenConfig) => async () => Number(await world.redis.command('ZCARD', slotsKey(config)));

describe.skipIf(!HAS_REDIS)(redisSuite('what several gateways share through Redis'), () => {
  it('two gateway processes sharing a group limit of 10 requests per minute admit 10 in all (±1) under concurrent load', async () => {
    const dir = world.scratchDir('mgw-shared-config-');
    const file = join(dir, 'gateway.config.json');
    writeFileSync(file, JSON.stringify(sharedConfig({ requestsPerMinute: 10 })));
    const serve = () => spawnGateway([join(REPO, 'bin/model-gateway.js'), 'serve', '--config', file, '--port', '0', '--no-inspector', '--no-watch', '--no-color'], children, PROCESS_TEST_MS - 15_000);
    const gateways = [serve(), serve()];
    const urls = await Promise.all(gateways.map((g) => g.url));

    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => chat(urls[i % 2]!)));
    const served = answers.filter((a) => a.status === 200).length;
    expect(served).toBeGreaterThanOrEqual(9);
    expect(served).toBeLessThanOrEqual(11);
    // Every other answer is the limit's 429 (each gateway alone would have admitted 10).
    expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 429 && a.code === 'rate_limit_exceeded')).toBe(true);
    expect(world.upstream.received).toHaveLength(served);
    for (const g of gateways) g.child.kill('SIGTERM');
  }, PROCESS_TEST_MS);

  const policies = [
    { policy: 'open', whileDown: [200, 429], downStatus: 200 },
    { policy: 'closed', whileDown: [503], downStatus: 503 },
  ] as const;
  for (const { policy, whileDown, downStatus } of policies) {
    it(`Redis killed mid-load (onRedisDown.limits "${policy}"): both gateways answer ${whileDown.join(' or ')} meanwhile, log the outage and its end once each, and share the limit again once Redis is back`, async () => {
      const config = sharedConfig({ concurrentRequests: 2 }, { onRedisDown: { limits: policy }, commandTimeoutMs: 300 });
      const a = await startGateway(config);
      const b = await startGateway(config);
      running.push(a, b);
      sent = 0;
      const urls = [a.url, b.url];

      // Before: the group's 2 slots are shared, one held through each gateway; a third request is refused by both.
      let held = holdAnswers();
      const holding = [chat(a.url), chat(b.url)];
      await waitFor(async () => (await slotsHeld(config)()) === 2, 'both slots to be taken');
      expect(await chat(a.url)).toEqual({ status: 429, code: 'rate_limit_exceeded' });
      expect(await chat(b.url)).toEqual({ status: 429, code: 'rate_limit_exceeded' });

      // Redis dies with those two in progress (their ends will fail), and load goes on.
      await world.redis.kill();
      held.release();
      expect(await Promise.all(holding)).toEqual([{ status: 200 }, { status: 200 }]);
      world.upstream.reset();
      await quiet([a, b]);
      const during = await Promise.all(Array.from({ length: 12 }, (_, i) => chat(urls[i % 2]!)));
      await quiet([a, b]);
      for (const answer of during) expect(whileDown).toContain(answer.status);
      expect(during.some((x) => x.status === downStatus)).toBe(true);
      if (policy === 'closed') {
        expect(during.every((x) => x.code === 'limit_store_unavailable')).toBe(true);
        // Anthropic callers get the same refusal in their own shape.
        const messages = await anthropic(a.url).messages.create({ model: 'claude-test', max_tokens: 5, messages: user }).catch((err: unknown) => err);
        expect(messages).toBeInstanceOf(Anthropic.APIError);
        expect((messages as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
      } else {
        // Each gateway counts on its own meanwhile: 2 at once each.
        world.upstream.reset();
        held = holdAnswers();
        const local = [chat(a.url), chat(a.url), chat(b.url), chat(b.url)];
        await waitFor(() => world.upstream.received.length === 4, 'four requests to be in progress');
        expect(await chat(a.url)).toEqual({ status: 429, code: 'rate_limit_exceeded' });
        held.release();
        expect(await Promise.all(local)).toEqual(Array(4).fill({ status: 200 }));
        world.upstream.reset();
        await quiet([a, b]);
      }

      // Redis comes back (empty, on the same port): each gateway says so once, and the limit is shared again.
      await world.redis.restart();
      for (const gw of [a, b]) await waitFor(() => /answers again/.test(gw.output.join('')), 'the gateway to see Redis back');
      held = holdAnswers();
      const after = [chat(a.url), chat(b.url)];
      await waitFor(async () => (await slotsHeld(config)()) === 2, 'both slots to be taken again');
      expect(await chat(b.url)).toEqual({ status: 429, code: 'rate_limit_exceeded' });
      held.release();
      expect(await Promise.all(after)).toEqual([{ status: 200 }, { status: 200 }]);
      // Nothing held: the ended requests gave their slots back.
      await waitFor(async () => (await slotsHeld(config)()) === 0, 'the slots to be given back');

      for (const gw of [a, b]) {
        const text = gw.output.join('');
        expect(text.match(/cannot be reached/g)).toHaveLength(1);
        expect(text.match(/answers again/g)).toHaveLength(1);
        expect(text).not.toMatch(/the limit store failed/);
      }
    });
  }

  it('a stalled Redis (stopped, its connections open) holds no request past the command timeout, and is seen again once it answers', async () => {
    const config = sharedConfig({ requestsPerMinute: 100 }, { commandTimeoutMs: 200 });
    const gw = await startGateway(config);
    running.push(gw);
    expect(await chat(gw.url)).toEqual({ status: 200 });
    world.redis.pause();
    try {
      // Without the timeout this request would wait for Redis forever; it is served from this gateway's own counters.
      expect(await chat(gw.url)).toEqual({ status: 200 });
      expect(gw.output.join('')).toMatch(/Redis at redis:\/\/127\.0\.0\.1:\d+ cannot be reached \(Command timed out\)/);
      expect(await chat(gw.url)).toEqual({ status: 200 });
    } finally {
      world.redis.resume();
    }
    // The connection never closed: only a PING answered says Redis is back.
    await waitFor(() => /answers again/.test(gw.output.join('')), 'the gateway to see Redis back');
    expect(await chat(gw.url)).toEqual({ status: 200 });
  });

  it("a command Redis refuses on its own (a key of another type where the group's slots are) is decided by the policy for its request alone: Redis stays in use, and the error is logged once", async () => {
    const config = sharedConfig({ concurrentRequests: 1 });
    const gw = await startGateway(config);
    running.push(gw);
    sent = 0;
    const slots = slotsKey(config);
    await world.redis.command('RPUSH', slots, 'not a sorted set');
    // Limits are open while Redis cannot decide: each is counted in this gateway's memory.
    for (let i = 0; i < 3; i++) expect(await chat(gw.url)).toEqual({ status: 200 });
    await quiet([gw]);
    const text = gw.output.join('');
    expect(text.match(/answered a command with an error \(WRONGTYPE/g)).toHaveLength(1);
    expect(text).not.toMatch(/cannot be reached/);
    // With the key Redis's to use again, the next request is counted there at once: Redis was never given up.
    await world.redis.command('DEL', slots);
    const held = holdAnswers();
    const inProgress = chat(gw.url);
    await waitFor(async () => (await slotsHeld(config)()) === 1, 'the slot to be taken in Redis');
    held.release();
    expect(await inProgress).toEqual({ status: 200 });
    expect(gw.output.join('')).not.toMatch(/cannot be reached|answers again/);
  });

  it('the wrong-key throttle counts the failures of all gateways: a guesser spreading over two gets the limit, not twice it', async () => {
    const config = { ...sharedConfig({ requestsPerMinute: 100 }), server: { authFailuresPerMinute: 3 } } as WrittenConfig;
    const gateways = [await startGateway(config), await startGateway(config)];
    running.push(...gateways);
    // A failure counted before a gateway's connection is up would be counted by that gateway alone.
    await waitFor(() => gateways.every((g) => g.gateway.server.listening) && connectedClients().then((n) => n >= 4), 'both gateways to reach Redis');
    const failures = `${(config.state as { keyPrefix: string }).keyPrefix}auth-failures:{127.0.0.1}`;
    const statuses: (number | string)[] = [];
    for (let i = 0; i < 10; i++) {
      const answer = await new OpenAI({ baseURL: `${gateways[i % 2]!.url}/v1`, apiKey: `wrong-key-${i}`, maxRetries: 0 })
        .chat.completions.create({ model: 'gpt-test', messages: user })
        .catch((err: unknown) => err);
      if (!(answer instanceof OpenAI.APIError)) throw new Error(`expected a refusal, got ${JSON.stringify(answer)}`);
      statuses.push(answer.status === 429 ? String(answer.code) : answer.status!);
      // Each failure reached Redis before the next try (the gateways count after answering).
      // (INCRBY 0: the count as an integer reply, unchanged.)
      const counted = async () => Number(await world.redis.command('INCRBY', failures, '0'));
      if (answer.status === 401) await waitFor(async () => (await counted()) >= statuses.filter((x) => x === 401).length, 'the failure to be counted');
    }
    const refusedKeys = statuses.filter((x) => x === 401).length;
    // Alone, each gateway would check 3 keys (6 in all); together the limit's 3, and at most one more on each gateway that had not heard.
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(refusedKeys).toBeLessThanOrEqual(5);
    expect(statuses.slice(refusedKeys)).toEqual(Array(10 - refusedKeys).fill('too_many_authentication_failures'));
  });

  it('a credential one gateway saw throttled (429) cools down on the other too: its next call goes to the next credential', async () => {
    const keys = { alpha: 'sk-ant-alpha-secret-000000000001', beta: 'sk-ant-beta-secret-0000000000002' };
    const calls: string[] = [];
    let throttleAlpha = true;
    world.upstream.always((req: Received, res: ServerResponse) => {
      const name = req.headers['x-api-key'] === keys.alpha ? 'alpha' : req.headers['x-api-key'] === keys.beta ? 'beta' : '?';
      calls.push(name);
      if (name === 'alpha' && throttleAlpha) {
        // Once: afterwards alpha would answer, so only a gateway that heard of the cool-down keeps away from it.
        throttleAlpha = false;
        sendJson(res, 429, { type: 'error', error: { type: 'rate_limit_error', message: 'rate limited' } }, { 'retry-after': '30' });
      } else cannedReply(req, res);
    });
    const keyPrefix = `e2e-${process.pid}-${prefixes++}:`;
    const config = {
      providers: {
        claude: {
          type: 'anthropic',
          baseUrl: world.upstream.url,
          retries: 2,
          credentials: [
            { name: 'alpha', apiKey: keys.alpha },
            { name: 'beta', apiKey: keys.beta, priority: 1 },
          ],
        },
      },
      models: { 'claude-test': { provider: 'claude' } },
      keyGroups: { dev: { keys: [GATEWAY_KEY] } },
      state: { redis: world.redis.url, keyPrefix },
    } as WrittenConfig;
    const a = await startGateway(config);
    const b = await startGateway(config);
    running.push(a, b);
    // Both gateways listen, and so does the test: once it heard the cool-down, the other gateway's listener had it first.
    const channel = `${keyPrefix}credential-cooldowns`;
    const observer = new Redis(world.redis.url);
    try {
      await waitFor(async () => ((await observer.pubsub('NUMSUB', channel)) as [string, number])[1] === 2, 'both gateways to listen');
      const heard = new Promise<string>((resolve) => observer.on('message', (_channel: string, text: string) => resolve(text)));
      await observer.subscribe(channel);

      const first = await anthropic(a.url).messages.create({ model: 'claude-test', max_tokens: 5, messages: user });
      expect(first.content[0]).toMatchObject({ type: 'text' });
      expect(calls).toEqual(['alpha', 'beta']);
      expect(JSON.parse(await heard)).toMatchObject({ provider: 'claude', credential: 'alpha', ms: 30_000 });
      // The message names the credential, never its key.
      expect(await heard).not.toContain(keys.alpha);

      await new Promise((r) => setTimeout(r, 50));
      calls.length = 0;
      await anthropic(b.url).messages.create({ model: 'claude-test', max_tokens: 5, messages: user });
      expect(calls).toEqual(['beta']);
    } finally {
      observer.disconnect();
    }
  });

  it('a gateway killed with slots held frees them by expiry: the other gateway is refused, then served', async () => {
    const config = sharedConfig({ concurrentRequests: 2 });
    const dir = world.scratchDir('mgw-shared-config-');
    const file = join(dir, 'gateway.config.json');
    writeFileSync(file, JSON.stringify(config));
    const ttl = 4000;
    const doomed = spawnGateway(gatewayProcessArgs(file, ttl), children, PROCESS_TEST_MS - 15_000);
    const url = await doomed.url;
    const other = await startGateway(config);
    running.push(other);
    let held = holdAnswers();
    try {
      const hanging = [chat(url), chat(url)];
      await waitFor(async () => (await slotsHeld(config)()) === 2, 'the killed gateway to hold both slots');
      const killedAt = Date.now();
      doomed.child.kill('SIGKILL');
      await Promise.allSettled(hanging);
      held.release();
      world.upstream.reset();

      // Its slots outlive the process: the other gateway is refused...
      expect(await chat(other.url)).toEqual({ status: 429, code: 'rate_limit_exceeded' });
      // ...for their lifetime at most (pushed back last before the kill): then it holds both places at once.
      await new Promise((r) => setTimeout(r, Math.max(0, killedAt + ttl + 100 - Date.now())));
      held = holdAnswers();
      const both = [chat(other.url), chat(other.url)];
      await waitFor(() => world.upstream.received.length === 2, 'both requests to be in progress');
      held.release();
      expect(await Promise.all(both)).toEqual([{ status: 200 }, { status: 200 }]);
      await waitFor(async () => (await slotsHeld(config)()) === 0, 'nothing to be held');
    } finally {
      held.release();
    }
  }, PROCESS_TEST_MS);
});
