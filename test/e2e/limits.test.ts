/**
 * Key-group limits and the server's overload caps, through the real server: over a
 * limit is 429 in the caller's shape with retry-after, over the server's caps 503/529,
 * and the gateway keeps serving everyone else.
 */
import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import { chatFrames, messageJson } from '../helpers/canned.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import { CI_KEY, GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { waitFor } from '../helpers/wait-for.js';

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());
afterEach(() => upstream.reset());

const running: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((g) => g.close()));
});

async function gateway(groupLimits: Record<string, unknown>, server: Record<string, unknown> = {}): Promise<TestGateway> {
  const config = {
    server,
    providers: {
      openai: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-o' },
      anthropic: { type: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-a' },
    },
    models: { 'gpt-test': { provider: 'openai' }, 'claude-test': { provider: 'anthropic' } },
    keyGroups: { limited: { keys: [GATEWAY_KEY], limits: groupLimits }, free: { keys: [CI_KEY] } },
  } as WrittenConfig;
  const gw = await startGateway(config);
  running.push(gw);
  return gw;
}

const chatBody = JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
const chat = (gw: TestGateway, key = GATEWAY_KEY, body = chatBody) =>
  call(`${gw.url}/v1/chat/completions`, { headers: { authorization: `Bearer ${key}` }, body });
const messages = (gw: TestGateway, key = GATEWAY_KEY) =>
  call(`${gw.url}/v1/messages`, {
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
  });

/** Holds upstream answers until released, so requests stay in progress. */
function holdAnswers() {
  const held: ServerResponse[] = [];
  upstream.always((_req, res) => {
    held.push(res);
  });
  return {
    count: () => held.length,
    release() {
      for (const res of held.splice(0)) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(chatFrames('m', false).join(''));
      }
    },
  };
}

describe('key group limits', () => {
  it('requestsPerMinute: the burst passes, the next is 429 with retry-after in the caller’s shape; other groups are not affected', async () => {
    const gw = await gateway({ requestsPerMinute: 2 });
    expect((await chat(gw)).status).toBe(200);
    expect((await messages(gw)).status).toBe(200);
    const over = await chat(gw);
    expect(over.status).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(29);
    expect(over.json).toEqual({
      error: {
        message: expect.stringMatching(/^Key group 'limited' is over its limit of 2 requests per minute; retry in \d+s\.$/),
        type: 'rate_limit_error',
        param: null,
        code: 'rate_limit_exceeded',
      },
    });
    const overAnthropic = await messages(gw);
    expect(overAnthropic.status).toBe(429);
    expect(overAnthropic.json).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect((await chat(gw, CI_KEY)).status).toBe(200);
    // Refused requests never reach the provider.
    expect(upstream.received).toHaveLength(3);
  });

  it('concurrentRequests: refused while the group has that many in progress, served again once one ends', async () => {
    const gw = await gateway({ concurrentRequests: 2 });
    const hold = holdAnswers();
    const stream = JSON.stringify({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const first = chat(gw, GATEWAY_KEY, stream);
    const second = chat(gw, GATEWAY_KEY, stream);
    await waitFor(() => hold.count() === 2, 'two requests upstream');
    const third = await chat(gw, GATEWAY_KEY, stream);
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBe('1');
    hold.release();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    upstream.reset();
    expect((await chat(gw)).status).toBe(200);
  });

  it('tokensPerMinute: once reported usage reaches the limit, the group waits', async () => {
    const gw = await gateway({ tokensPerMinute: 30 });
    upstream.always((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // 17 input + 3 output per answer (the canned Messages usage).
      res.end(JSON.stringify(messageJson('claude-test')));
    });
    expect((await messages(gw)).status).toBe(200);
    // The log line (and the usage) is recorded when the response closes; give it a moment.
    await new Promise((r) => setTimeout(r, 50));
    expect((await messages(gw)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    const over = await messages(gw);
    expect(over.status).toBe(429);
    expect(over.json).toMatchObject({ error: { message: expect.stringContaining('30 tokens per minute') } });
  });
});

describe('server overload caps', () => {
  it('maxConcurrentRequests: past the cap, 503 (529 for Anthropic callers) with retry-after, then served again', async () => {
    const gw = await gateway({}, { maxConcurrentRequests: 2 });
    const hold = holdAnswers();
    const first = chat(gw, CI_KEY);
    const second = chat(gw, CI_KEY);
    await waitFor(() => hold.count() === 2, 'two requests upstream');
    const third = await chat(gw, CI_KEY);
    expect(third.status).toBe(503);
    expect(third.headers['retry-after']).toBe('1');
    expect(third.json).toMatchObject({ error: { type: 'service_unavailable_error', code: 'server_is_overloaded' } });
    const anthropic = await messages(gw, CI_KEY);
    expect(anthropic.status).toBe(529);
    expect(anthropic.json).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    // Health checks are not model requests: still answered.
    expect((await call(`${gw.url}/health`, { method: 'GET' })).status).toBe(200);
    hold.release();
    await Promise.all([first, second]);
    upstream.reset();
    expect((await chat(gw, CI_KEY)).status).toBe(200);
  });

  it('maxBufferedBytes: a body that would pass the budget is refused with 503 and the connection closed', async () => {
    const gw = await gateway({}, { maxBufferedBytes: 64 * 1024 });
    const big = JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'x'.repeat(100 * 1024) }] });
    const res = await request(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CI_KEY}`, 'content-type': 'application/json' },
      body: big,
    });
    expect(res.statusCode).toBe(503);
    expect(res.headers.connection).toBe('close');
    expect(await res.body.json()).toMatchObject({ error: { type: 'service_unavailable_error' } });
    // The budget was given back: a small request is served.
    expect((await chat(gw, CI_KEY)).status).toBe(200);
  });
});

describe('binding beyond loopback', () => {
  it('is refused without any key group, allowed with one', async () => {
    const { parseConfig } = await import('#src/config/parse.js');
    const { createGateway } = await import('#src/server/gateway.js');
    const { createLogger } = await import('#src/log/logger.js');
    const { Chalk } = await import('chalk');
    const logger = createLogger({ out: { write: () => true }, chalk: new Chalk({ level: 0 }) });
    const open = createGateway({ config: parseConfig({ providers: { e: { type: 'echo' } }, models: { echo: { provider: 'e' } } }, { env: {} }), logger });
    await expect(open.listen(0, '0.0.0.0')).rejects.toThrow(/Refusing to listen on 0\.0\.0\.0: no key group is configured/);
    const url = await open.listen(0, '127.0.0.1');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await open.close(0);

    const keyed = createGateway({
      config: parseConfig({ providers: { e: { type: 'echo' } }, models: { echo: { provider: 'e' } }, keyGroups: { g: { keys: [GATEWAY_KEY] } } }, { env: {} }),
      logger: createLogger({ out: { write: () => true }, chalk: new Chalk({ level: 0 }) }),
    });
    await expect(keyed.listen(0, '0.0.0.0')).resolves.toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    await keyed.close(0);
  });
});
