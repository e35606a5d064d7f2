/**
 * Issue 21, finding 4: connections that say nothing, or too many of them. A connection that
 * sends no request head within headersTimeoutMs is closed; an idle keep-alive connection is
 * closed after keepAliveTimeoutMs; past maxConnections the longest-idle connections are closed
 * first and a new one is refused when none is idle. Requests in progress, long streams included,
 * are never cut by any of this, and the gateway keeps serving new clients throughout.
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chatFrames } from '../helpers/canned.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import type { Behaviour } from '../helpers/received.js';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { CHAT, RawClient, eventually, requestHead, robustConfig, sleep } from './helpers.js';

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());

const started: TestGateway[] = [];
async function gateway(server: Record<string, number>): Promise<TestGateway> {
  const gw = await startGateway(robustConfig(upstream.url, { server: { requestTimeoutMs: 5000, ...server } }));
  started.push(gw);
  return gw;
}
afterAll(() => Promise.all(started.map((g) => g.close())));

const sdk = (gw: TestGateway) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });

/** A new SDK client is answered, and quickly. */
async function expectServedPromptly(gw: TestGateway): Promise<void> {
  const t0 = performance.now();
  const answer = await sdk(gw).chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'still here' }] });
  expect(answer.choices[0]?.message.content).toBe('still here');
  expect(performance.now() - t0).toBeLessThan(2000);
}

/** Opens `n` connections that never send a byte. */
const openSilent = (gw: TestGateway, n: number) => Promise.all(Array.from({ length: n }, () => RawClient.open(gw.url)));

/** The connections the gateway's server holds now (a client's connect may come before the server's accept). */
const serverConnections = (gw: TestGateway) =>
  new Promise<number>((resolve, reject) => gw.gateway.server.getConnections((err, count) => (err ? reject(err) : resolve(count))));

/** A chat stream from the upstream: one frame every `everyMs`, `count` frames in all. */
const slowStream =
  (count: number, everyMs: number): Behaviour =>
  async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const frames = chatFrames('gpt-upstream', false);
    res.write(frames[0]);
    for (let i = 0; i < count && !res.destroyed; i++) {
      await sleep(everyMs);
      res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-upstream', choices: [{ index: 0, delta: { content: `${i} ` }, finish_reason: null }] })}\n\n`);
    }
    res.end(frames.slice(-2).join(''));
  };

async function streamAll(gw: TestGateway): Promise<string> {
  const stream = await sdk(gw).chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'slow' }], stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  return text;
}

const clients: RawClient[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.destroy();
  upstream.reset();
});

describe('connections that send nothing, and idle keep-alive', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await gateway({ headersTimeoutMs: 300, keepAliveTimeoutMs: 300 });
  });
  afterEach(() => expectServedPromptly(gw));

  it('connections that never send a byte are closed after headersTimeoutMs, not before', async () => {
    const silent = await openSilent(gw, 20);
    clients.push(...silent);
    // The wait is the test: halfway through headersTimeoutMs every connection must still be open.
    await sleep(150);
    expect(silent.filter((c) => c.isOpen)).toHaveLength(20);
    expect(await eventually(() => silent.every((c) => !c.isOpen), 3000)).toBe(true);
  });

  it('an idle keep-alive connection is closed after keepAliveTimeoutMs (Node adds its 1 s margin)', async () => {
    const client = await RawClient.open(gw.url);
    clients.push(client);
    const body = JSON.stringify(CHAT.body('echo'));
    await client.write(requestHead('POST', CHAT.path, { ...CHAT.headers(), 'content-length': Buffer.byteLength(body) }) + body);
    expect((await client.response()).status).toBe(200);
    expect(await client.closesWithin(200)).toBe(false);
    expect(await client.closesWithin(3000)).toBe(true);
  });

  it('a slow stream, longer than both timeouts, is not cut', async () => {
    upstream.once(slowStream(8, 150));
    expect(await streamAll(gw)).toBe('0 1 2 3 4 5 6 7 ');
  });
});

describe('maxConnections', () => {
  it('holds the cap against 300 silent sockets by closing the longest idle, and serves a new SDK client promptly', async () => {
    const gw = await gateway({ headersTimeoutMs: 20_000, maxConnections: 100 });
    const first = await openSilent(gw, 150);
    const second = await openSilent(gw, 150);
    clients.push(...first, ...second);
    // The 200 oldest make room for the newest 100.
    expect(await eventually(() => [...first, ...second].filter((c) => c.isOpen).length <= 100)).toBe(true);
    expect(first.filter((c) => c.isOpen)).toHaveLength(0);
    expect(second.slice(50).every((c) => c.isOpen)).toBe(true);
    // A new client takes the place of the longest-idle socket.
    await expectServedPromptly(gw);
    expect(await eventually(() => !second[50]!.isOpen)).toBe(true);
    expect(await eventually(() => second.filter((c) => c.isOpen).length <= 99)).toBe(true);
  });

  it('never sheds a busy connection: with every place streaming, new connections are refused and the streams finish', async () => {
    const gw = await gateway({ headersTimeoutMs: 300, keepAliveTimeoutMs: 300, maxConnections: 3 });
    upstream.always(slowStream(10, 150));
    const streams = [streamAll(gw), streamAll(gw), streamAll(gw)];
    expect(await eventually(() => upstream.received.length === 3)).toBe(true);
    const refused = await Promise.all(Array.from({ length: 20 }, () => RawClient.open(gw.url).catch(() => undefined)));
    clients.push(...refused.filter((c) => c !== undefined));
    expect(await eventually(() => refused.every((c) => c === undefined || !c.isOpen), 1000)).toBe(true);
    for (const text of await Promise.all(streams)) expect(text).toBe('0 1 2 3 4 5 6 7 8 9 ');
    upstream.reset();
    await expectServedPromptly(gw);
  });

  it('a reload applies a lower cap and a new keep-alive timeout', async () => {
    const gw = await gateway({ headersTimeoutMs: 20_000, maxConnections: 50 });
    const silent = await openSilent(gw, 40);
    clients.push(...silent);
    await expect.poll(() => serverConnections(gw)).toBe(40);
    const config = gw.gateway.state.config;
    gw.gateway.reload({ ...config, server: { ...config.server, maxConnections: 10, keepAliveTimeoutMs: 300 } });
    expect(await eventually(() => silent.filter((c) => c.isOpen).length <= 10)).toBe(true);
    expect(gw.gateway.server.keepAliveTimeout).toBe(300);
    await expectServedPromptly(gw);
  });
});
