/**
 * Retries, fallbacks and timeouts against a fake upstream that fails on purpose:
 * refused connections, resets, stalls, 429 with retry-after, 500 then 200, 529
 * forever. Each case checks what the client got, how many attempts the upstream
 * saw, and (loosely) how long it took.
 */
import type { ServerResponse } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import { CANNED_TEXT, chatFrames } from '../helpers/canned.js';
import { sendJson, startFakeUpstream, writeSlowly, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call, closedPort } from '../helpers/http.js';
import { GATEWAY_KEY, startGateway, waitForLines, type TestGateway } from '../helpers/start-gateway.js';

let upstream: FakeUpstream;
let gw: TestGateway;
let deadPort: number;
const LIMITED_KEY = 'gw-limited-key-0123456789';

beforeAll(async () => {
  upstream = await startFakeUpstream();
  deadPort = await closedPort();

  const config: WrittenConfig = {
    providers: {
      openai: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-o', retries: 2 },
      anthropic: { type: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-a', retries: 2 },
      quick: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-q', retries: 1, timeouts: { headersMs: 300, idleMs: 300 } },
      capped: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-c', retries: 2, timeouts: { totalMs: 600 } },
      down: { type: 'openai', baseUrl: `http://127.0.0.1:${deadPort}/v1`, apiKey: 'sk-d', retries: 2 },
      never: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-never-secret-0000', retries: 0 },
    },
    models: {
      'gpt-test': { provider: 'openai', upstreamModel: 'gpt-upstream' },
      'claude-test': { provider: 'anthropic', upstreamModel: 'claude-upstream' },
      'quick-model': { provider: 'quick' },
      'capped-model': { provider: 'capped' },
      'down-model': { provider: 'down', fallbacks: ['claude-test'] },
      'primary': { provider: 'openai', upstreamModel: 'primary-upstream', fallbacks: ['not-allowed', 'claude-test'] },
      'not-allowed': { provider: 'openai', upstreamModel: 'secret-upstream' },
      'no-retry': { provider: 'never' },
    },
    keyGroups: {
      dev: { keys: [GATEWAY_KEY], models: ['gpt-test', 'claude-test', 'quick-model', 'capped-model', 'down-model', 'primary', 'no-retry'] },
      limited: { keys: [LIMITED_KEY], models: ['primary'] },
    },
  };
  gw = await startGateway(config);
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

const chat = (model: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra });
const post = (model: string, extra: Record<string, unknown> = {}, key = GATEWAY_KEY) =>
  call(`${gw.url}/v1/chat/completions`, { headers: { authorization: `Bearer ${key}` }, body: chat(model, extra) });
const fail = (status: number, headers: Record<string, string> = {}) => (_req: unknown, res: ServerResponse) =>
  sendJson(res, status, { error: { message: `failed with ${status}`, type: 'server_error' } }, headers);
const overloaded = (_req: unknown, res: ServerResponse) =>
  sendJson(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, { 'retry-after-ms': '20' });
/** The log line of the most recent request, once it is written. */
async function lastLine(): Promise<string> {
  const count = gw.lines().length;
  await waitForLines(gw, Math.max(count, 1));
  return gw.lines().at(-1)!;
}

describe('retries before the first byte', () => {
  it('500 then 200: the client gets the 200, the upstream saw two attempts', async () => {
    upstream.once(fail(500, { 'retry-after-ms': '10' }));
    const before = gw.lines().length;
    const res = await post('gpt-test');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ choices: [{ message: { content: CANNED_TEXT } }] });
    expect(upstream.received).toHaveLength(2);
    expect(upstream.received.map((r) => (r.json as { model: string }).model)).toEqual(['gpt-upstream', 'gpt-upstream']);
    const [line] = (await waitForLines(gw, before + 1)).slice(before);
    expect(line).toContain('via gpt-test 500 → gpt-test');
  });

  it('429 with retry-after-ms is honoured: the retry waits that long', async () => {
    upstream.once(fail(429, { 'retry-after-ms': '300' }));
    const started = performance.now();
    const res = await post('gpt-test');
    const elapsed = performance.now() - started;
    expect(res.status).toBe(200);
    expect(upstream.received).toHaveLength(2);
    expect(elapsed).toBeGreaterThanOrEqual(280);
  });

  it('a 429 is still retried on passthrough; the last one comes back as the provider sent it, with x-should-retry: false', async () => {
    const body = '{"error": {"message": "Rate limit reached for requests", "type": "requests", "code": "rate_limit_exceeded", "extra": 1}}';
    upstream.always((_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '20' });
      res.end(body);
    });
    const res = await post('gpt-test');
    expect(upstream.received).toHaveLength(3); // retries: 2
    expect(res.status).toBe(429);
    expect(res.text).toBe(body);
    expect(res.headers['x-should-retry']).toBe('false');
  });

  it('429 with retry-after in seconds is honoured too', async () => {
    upstream.once(fail(429, { 'retry-after': '1' }));
    const started = performance.now();
    const res = await post('gpt-test');
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('a retry-after longer than a minute is not waited for: the 429 goes back with its hint at once', async () => {
    upstream.once(fail(429, { 'retry-after': '120' }));
    const started = performance.now();
    const res = await post('gpt-test');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('120');
    expect(upstream.received).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('529 forever: three attempts (retries: 2), then 529 overloaded_error and x-should-retry: false', async () => {
    upstream.always(overloaded);
    const res = await call(`${gw.url}/v1/messages`, {
      headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(529);
    expect(res.json).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    expect(res.headers['x-should-retry']).toBe('false');
    expect(upstream.received).toHaveLength(3);
    expect(await lastLine()).toContain('via claude-test 529×3');
  });

  it('the official SDK does not retry what the gateway already retried', async () => {
    upstream.always(fail(503, { 'retry-after-ms': '10' }));
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 3 });
    const err = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    // 3 gateway attempts for one SDK call: the SDK's own 3 retries would have made 12.
    expect(upstream.received).toHaveLength(3);
  });

  it('a 400 is the request’s fault: not retried', async () => {
    upstream.once(fail(400));
    const res = await post('gpt-test');
    expect(res.status).toBe(400);
    expect(upstream.received).toHaveLength(1);
    expect(res.headers['x-should-retry']).toBeUndefined();
  });

  it('retries: 0 sends once and leaves retrying to the client', async () => {
    upstream.always(fail(500));
    const res = await post('no-retry');
    expect(res.status).toBe(500);
    expect(upstream.received).toHaveLength(1);
    expect(res.headers['x-should-retry']).toBeUndefined();
  });

  it('a connection reset before the answer is retried', async () => {
    upstream.once((_req, res) => {
      res.socket?.destroy();
    });
    const res = await post('gpt-test');
    expect(res.status).toBe(200);
    expect(upstream.received).toHaveLength(2);
  });

  it('a whole answer that breaks off while being read is retried: the client has received nothing yet', async () => {
    upstream.once((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"id":"chatcmpl-1","object":"chat.comp');
      setTimeout(() => res.destroy(), 20);
    });
    const res = await post('gpt-test');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ choices: [{ message: { content: CANNED_TEXT } }] });
    expect(upstream.received).toHaveLength(2);
  });

  it('an upstream that stalls before its headers is retried after headersMs', async () => {
    upstream.once(() => undefined); // never answers
    const started = performance.now();
    const res = await post('quick-model');
    expect(res.status).toBe(200);
    expect(upstream.received).toHaveLength(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('a refused connection is retried, then the fallback; its failure goes back with x-should-retry: false', async () => {
    upstream.always(overloaded);
    const res = await post('down-model');
    // Anthropic's 529 reaches an OpenAI-family caller as 503, which its SDK understands.
    expect(res.status).toBe(503);
    expect(res.headers['x-should-retry']).toBe('false');
    const line = await lastLine();
    // Three refused connections, then the fallback's three 529s.
    expect(line).toContain('via down-model unreachable×3 → claude-test 529×3');
  });
});

describe('never after the first byte', () => {
  it('a stream reset mid-way ends with an error frame and is not retried', async () => {
    upstream.once(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      await writeSlowly(res, chatFrames('gpt-upstream', true).slice(0, 2), 5);
      res.destroy();
    });
    const res = await post('gpt-test', { stream: true });
    expect(res.status).toBe(200);
    expect(res.text).toContain('"error"');
    expect(upstream.received).toHaveLength(1);
  });

  it('a stream that goes silent longer than idleMs ends with a timeout error frame, not retried', async () => {
    upstream.once(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chatFrames('m', true)[0]!);
      // then silence, longer than quick's idleMs of 300 ms
    });
    const res = await post('quick-model', { stream: true });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/went silent for 0\.3s/);
    expect(upstream.received).toHaveLength(1);
  });
});

describe('the total time cap (timeouts.totalMs)', () => {
  it('cuts a stream that runs past it with an in-band timeout error', async () => {
    upstream.once(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const frames = chatFrames('m', true);
      // A stream that would take 2 s; the cap is 600 ms.
      await writeSlowly(res, Array.from({ length: 20 }, () => frames[1]!), 100);
      res.end();
    });
    const started = performance.now();
    const res = await post('capped-model', { stream: true });
    const elapsed = performance.now() - started;
    expect(res.text).toMatch(/did not finish within 0\.6s/);
    expect(elapsed).toBeLessThan(1800);
    expect(await upstream.received[0]!.aborted).toBe(true);
  });

  it('bounds retries too: a 504 once the cap passes, whatever is left of the attempts', async () => {
    upstream.always(fail(500, { 'retry-after-ms': '400' }));
    const res = await post('capped-model');
    expect(res.status).toBe(504);
    expect(res.json).toMatchObject({ error: { message: expect.stringMatching(/did not finish within 0\.6s/) } });
    expect(upstream.received.length).toBeLessThanOrEqual(2);
  });
});

describe('fallbacks', () => {
  it('after the primary’s retries, the next allowed model serves it, translated to its protocol', async () => {
    upstream.always((req, res) => {
      if (req.url.startsWith('/v1/chat/completions')) return overloaded(req, res);
      // The Anthropic fallback answers normally.
      return sendJson(res, 200, {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-upstream',
        content: [{ type: 'text', text: 'from the fallback' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 3, output_tokens: 4 },
      });
    });
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'primary', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]!.message.content).toBe('from the fallback');
    // 'not-allowed' is not among the dev group's models: skipped without a request.
    expect(upstream.received.map((r) => r.url)).toEqual(['/v1/chat/completions', '/v1/chat/completions', '/v1/chat/completions', '/v1/messages']);
    expect((upstream.received[3]!.json as { model: string }).model).toBe('claude-upstream');
    expect(await lastLine()).toContain('via primary 529×3 → claude-test');
  });

  it('a key group that may not use the fallbacks gets the primary’s failure', async () => {
    upstream.always(overloaded);
    const res = await post('primary', {}, LIMITED_KEY);
    expect(res.status).toBe(503);
    expect(upstream.received).toHaveLength(3);
    expect(upstream.received.every((r) => r.url === '/v1/chat/completions')).toBe(true);
  });

  it('a 400 does not fall back: the request itself is wrong', async () => {
    upstream.always(fail(400));
    const res = await post('primary');
    expect(res.status).toBe(400);
    expect(upstream.received).toHaveLength(1);
  });

  it('a streaming request falls back too, and the stream comes from the fallback', async () => {
    const client = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
    // A Messages caller on 'down-model' (unreachable) falls back to claude-test: native Messages.
    const stream = await client.messages.create({ model: 'down-model', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    expect(text).toBe(CANNED_TEXT);
    expect(upstream.received.map((r) => r.url)).toEqual(['/v1/messages']);
  });
});

describe('a client that leaves while the gateway waits to retry', () => {
  it('stops the retries', async () => {
    upstream.always(fail(500, { 'retry-after-ms': '800' }));
    const controller = new AbortController();
    const pending = fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
      body: chat('gpt-test'),
      signal: controller.signal,
    }).catch(() => undefined);
    // The first attempt's 500 is out: the gateway now waits the 800 ms it asks for.
    await expect.poll(() => upstream.received.length).toBe(1);
    expect(await upstream.received[0]!.aborted).toBe(false);
    controller.abort();
    await pending;
    // The wait is the test: past the retry's due time, no second attempt may have reached the upstream.
    await new Promise((r) => setTimeout(r, 1200));
    expect(upstream.received).toHaveLength(1);
  });
});

describe('an upstream that echoes the gateway’s credential in its error', () => {
  it('never shows it to the client', async () => {
    upstream.always((req, res) =>
      sendJson(res, 400, { error: { message: `bad request with key ${String(req.headers.authorization).slice(7)}`, type: 'invalid_request_error' } }),
    );
    const res = await post('no-retry');
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('sk-never-secret-0000');
    expect(res.json).toMatchObject({ error: { message: 'bad request with key [redacted]' } });
  });
});
