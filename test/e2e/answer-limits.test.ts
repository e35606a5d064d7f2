/**
 * Upstream answers past `server.maxResponseBytes`: a huge JSON answer, a stream line that never
 * ends, a stream event whose data lines never end. The call fails with the caller's error (502
 * before anything was sent, the protocol's error event mid-stream), the gateway stops reading the
 * upstream, its memory does not grow with what the upstream sends, and it keeps serving.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatFrames, messageFrames } from '../helpers/canned.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import type { Behaviour } from '../helpers/received.js';
import { GATEWAY_KEY, startGateway, testConfig, withoutRetries, type TestGateway } from '../helpers/start-gateway.js';
import { drained, upstreamProtocol } from '../robustness/upstream-scripts.js';

const LIMIT = 64 * 1024;
const MiB = 1024 * 1024;

let upstream: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gw = await startGateway(withoutRetries(testConfig(upstream.url, { server: { maxResponseBytes: LIMIT } })));
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});

/** How much a flood wrote before the gateway hung up. */
interface Flood {
  written: number;
}

/** Writes `head`, then `unit` over and over (with back-pressure) up to `total` bytes or until the gateway hangs up. */
function flood(contentType: string, head: (res: ServerResponse, protocol: string) => string, unit: string, total: number, report: Flood): Behaviour {
  return async (req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    res.write(head(res, upstreamProtocol(req)));
    const block = Buffer.from(unit.repeat(Math.ceil((64 * 1024) / unit.length)));
    report.written = 0;
    while (report.written < total && !res.destroyed) {
      report.written += block.length;
      if (!res.write(block) && !(await drained(res))) break;
    }
    res.end();
  };
}

const jsonHead = () => '{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"';
/** The stream's first event, so the client has its headers and a first event before the flood. */
const sseHead = (_res: ServerResponse, protocol: string) => (protocol === 'messages' ? messageFrames('m')[0]! : chatFrames('m', false)[0]!);

const FLOODS = {
  'one huge JSON answer': (total: number, r: Flood) => flood('application/json', jsonHead, 'x', total, r),
  'one SSE line without a line end': (total: number, r: Flood) => flood('text/event-stream', (res, p) => `${sseHead(res, p)}data: {"x":"`, 'x', total, r),
  'one SSE event of data lines without a blank line': (total: number, r: Flood) => flood('text/event-stream', sseHead, 'data: {"x":1}\n', total, r),
} as const;

type Caller = 'chat' | 'messages' | 'responses';
const ROUTES: { caller: Caller; model: string; way: string }[] = [
  { caller: 'chat', model: 'gpt-test', way: 'passthrough' },
  { caller: 'chat', model: 'claude-test', way: 'translated' },
  { caller: 'messages', model: 'claude-test', way: 'passthrough' },
  { caller: 'messages', model: 'gpt-test', way: 'translated' },
  { caller: 'responses', model: 'gpt-test', way: 'passthrough' },
];

async function send(caller: Caller, model: string, stream: boolean): Promise<{ status: number; type: string; text: string }> {
  const [path, headers, body] =
    caller === 'messages'
      ? ['/v1/messages', { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' }, { model, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], stream }]
      : caller === 'chat'
        ? ['/v1/chat/completions', { authorization: `Bearer ${GATEWAY_KEY}` }, { model, messages: [{ role: 'user', content: 'hi' }], stream }]
        : ['/v1/responses', { authorization: `Bearer ${GATEWAY_KEY}` }, { model, input: 'hi', stream }];
  const res = await fetch(gw.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

const TOO_LARGE = /larger than the gateway's limit of 65536 bytes \(server\.maxResponseBytes\)/;

/** The caller's 502 error body. */
function expectErrorBody(caller: Caller, res: { status: number; text: string }): void {
  expect(res.status).toBe(502);
  const json = JSON.parse(res.text) as { type?: string; error: { type: string; message: string } };
  if (caller === 'messages') expect(json).toMatchObject({ type: 'error', error: { type: 'api_error', message: expect.stringMatching(TOO_LARGE) } });
  else expect(json).toMatchObject({ error: { type: 'server_error', message: expect.stringMatching(TOO_LARGE) } });
}

/** A 200 stream that ends with the caller's error event, after whole events only. */
function expectErrorEvent(caller: Caller, res: { status: number; text: string }): void {
  expect(res.status).toBe(200);
  expect(res.text.length).toBeLessThan(LIMIT);
  const blocks = res.text.trimEnd().split('\n\n');
  const error = blocks.findIndex((b) => TOO_LARGE.test(b));
  expect(error).toBeGreaterThanOrEqual(0);
  if (caller === 'chat') expect(blocks[error]).toMatch(/^data: \{"error":/);
  else expect(blocks[error]).toMatch(/^event: error\ndata: /);
  for (const block of blocks) for (const line of block.split('\n')) if (line.startsWith('data: {')) expect(() => JSON.parse(line.slice(6))).not.toThrow();
}

async function expectStillServing(): Promise<void> {
  const ok = await send('chat', 'gpt-test', false);
  expect(ok.status).toBe(200);
}

describe('answers past server.maxResponseBytes', () => {
  for (const { caller, model, way } of ROUTES) {
    for (const [name, make] of Object.entries(FLOODS)) {
      const sse = name.startsWith('one SSE');
      for (const stream of sse ? [true] : [false, true]) {
        it(`${caller} ${way}, ${stream ? 'stream' : 'no stream'}: ${name}`, async () => {
          const report: Flood = { written: 0 };
          upstream.once(make(8 * MiB, report));
          const res = await send(caller, model, stream);
          // A stream answered with JSON fails before its first byte, as a whole answer does.
          if (sse) expectErrorEvent(caller, res);
          else expectErrorBody(caller, res);
          expect(await upstream.last().aborted).toBe(true);
          expect(report.written).toBeLessThan(8 * MiB);
          await expectStillServing();
        });
      }
    }
  }

  it('memory does not grow with what the upstream sends', { timeout: 60_000 }, async () => {
    const total = 200 * MiB;
    global.gc?.();
    const before = process.memoryUsage().rss;
    for (const [name, make] of Object.entries(FLOODS)) {
      const report: Flood = { written: 0 };
      upstream.once(make(total, report));
      const res = await send('chat', 'gpt-test', name.startsWith('one SSE'));
      expect(res.text).toMatch(TOO_LARGE);
      expect(report.written, name).toBeLessThan(total);
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(50 * MiB);
    await expectStillServing();
  });
});

describe('answers read whole count against server.maxBufferedBytes', () => {
  const BUDGET = 256 * 1024;
  let small: TestGateway;
  beforeAll(async () => {
    small = await startGateway(withoutRetries(testConfig(upstream.url, { server: { maxResponseBytes: MiB, maxBufferedBytes: BUDGET } })));
  });
  afterAll(() => small.close());

  const answer = (bytes: number): Behaviour => (_req, res) => {
    const content = 'x'.repeat(bytes);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }));
  };
  const chat = () =>
    fetch(`${small.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY_KEY}` },
      body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('serves answers under the budget one after another: each request gives back what it held', async () => {
    for (let i = 0; i < 4; i++) {
      upstream.once(answer(200 * 1024));
      const res = await chat();
      expect(res.status).toBe(200);
      expect(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toHaveLength(200 * 1024);
    }
  });

  it('fails an answer the gateway cannot hold with what it holds already: 503 with retry-after, the upstream hung up on', async () => {
    const report: Flood = { written: 0 };
    // Far more than loopback's socket buffers hold, so an answer read to its end would show in what was written.
    upstream.once(flood('application/json', jsonHead, 'x', 64 * MiB, report));
    const res = await chat();
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/maximum of 262144 bytes of request and answer bodies/);
    expect(await upstream.last().aborted).toBe(true);
    expect(report.written).toBeLessThan(64 * MiB);
    upstream.once(answer(1024));
    expect((await chat()).status).toBe(200);
  });
});
