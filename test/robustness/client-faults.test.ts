/**
 * Issue 6, the client side: misbehaving clients and malformed input against the
 * real server. Every case answers in the caller's own error shape with the right
 * status (or, for faults node:http refuses before the gateway sees a request,
 * Node's own status with the connection closed), and after every case the
 * gateway still serves a normal request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Chalk } from 'chalk';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { capture, newExchange } from '#src/log/exchange.js';
import { createLogger } from '#src/log/logger.js';
import type { RequestRecord } from '#src/log/record.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '#src/protocols/json-outline.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';
import {
  CHAT,
  COUNT_TOKENS,
  ENDPOINTS,
  MESSAGES,
  RESPONSES,
  RawClient,
  errorOf,
  eventually,
  expectError,
  liveHeap,
  rawRequest,
  requestHead,
  robustConfig,
  sleep,
  within,
  type EndpointCase,
} from './helpers.js';
import { FLOOD_DELTA, floodStream, neverEndingStream, type FloodReport } from './upstream-scripts.js';

const MAX_BODY = 1024 * 1024;

let upstream: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gw = await startGateway(robustConfig(upstream.url, { server: { maxBodyBytes: MAX_BODY } }));
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

/** The gateway still answers an ordinary request, correctly. */
async function expectStillServing(target: TestGateway = gw): Promise<void> {
  const res = await call(`${target.url}${CHAT.path}`, { headers: CHAT.headers(), body: JSON.stringify(CHAT.body('echo', 'still here')) });
  expect(res.status, res.text).toBe(200);
  expect((res.json as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe('still here');
}
afterEach(async () => expectStillServing());

/** Whether a log line matching `pattern` appears after the first `from` lines (lines are written when responses close). */
const loggedAfter = (from: number, pattern: RegExp) => eventually(() => gw.lines().slice(from).some((l) => pattern.test(l)));

const send = (ep: EndpointCase, body: string | Buffer, headers: Record<string, string> = ep.headers()) =>
  call(`${gw.url}${ep.path}`, { headers, body });

// ---------------------------------------------------------------------------------------------------------------------

/** Routes that reach the fake upstream: native and translated, one per caller protocol at least. */
const UPSTREAM_ROUTES = [
  { name: 'chat → openai chat', ep: CHAT, model: 'gpt-test' },
  { name: 'responses → openai responses', ep: RESPONSES, model: 'gpt-test' },
  { name: 'messages → anthropic messages', ep: MESSAGES, model: 'claude-test' },
  { name: 'chat → anthropic messages (translated)', ep: CHAT, model: 'claude-test' },
  { name: 'messages → openai responses (translated)', ep: MESSAGES, model: 'gpt-test' },
  { name: 'responses → openai-compatible chat (translated)', ep: RESPONSES, model: 'local-chat' },
] as const;

describe('client hang-ups cancel the upstream call', () => {
  const cases = UPSTREAM_ROUTES.flatMap((r) => [
    { ...r, how: 'socket reset' as const },
    { ...r, how: 'fetch aborted' as const },
  ]);

  it.each(cases)('$name, $how before the response headers', async ({ ep, model, how }) => {
    upstream.once(() => undefined); // holds the request: no headers ever
    const linesBefore = gw.lines().length;
    const body = JSON.stringify({ ...ep.body(model), stream: true });
    let hangUp: () => void;
    let settled: Promise<unknown>;
    if (how === 'socket reset') {
      const client = await RawClient.open(gw.url);
      await client.write(requestHead('POST', ep.path, { ...ep.headers(), 'content-length': Buffer.byteLength(body) }) + body);
      hangUp = () => client.destroy();
      settled = client.closed;
    } else {
      const controller = new AbortController();
      settled = request(`${gw.url}${ep.path}`, { method: 'POST', headers: ep.headers(), body, signal: controller.signal }).catch((e: unknown) => e);
      hangUp = () => controller.abort();
    }
    expect(await eventually(() => upstream.received.length === 1)).toBe(true);
    hangUp();
    await settled;
    expect(await within(upstream.last().aborted, 3000, 'still open' as const)).toBe(true);
    expect(await loggedAfter(linesBefore, new RegExp(`${model} .*client closed`))).toBe(true);
  });

  it.each(cases)('$name, $how mid-stream', async ({ ep, model, how }) => {
    upstream.once(neverEndingStream);
    const linesBefore = gw.lines().length;
    const body = JSON.stringify({ ...ep.body(model), stream: true });
    if (how === 'socket reset') {
      const client = await RawClient.open(gw.url);
      let seen = '';
      client.socket.on('data', (d: Buffer) => (seen += d.toString()));
      await client.write(requestHead('POST', ep.path, { ...ep.headers(), 'content-length': Buffer.byteLength(body) }) + body);
      expect(await eventually(() => /\r\n\r\n[\s\S]*data:/.test(seen))).toBe(true);
      client.destroy();
    } else {
      const controller = new AbortController();
      const res = await request(`${gw.url}${ep.path}`, { method: 'POST', headers: ep.headers(), body, signal: controller.signal });
      expect(res.statusCode).toBe(200);
      expect(String(res.headers['content-type'])).toMatch(/text\/event-stream/);
      for await (const chunk of res.body) {
        expect(String(chunk)).toMatch(/data:/);
        break; // leaving the loop destroys the body, as a client that stops reading and closes would
      }
      controller.abort();
    }
    expect(await within(upstream.last().aborted, 3000, 'still open' as const)).toBe(true);
    expect(await loggedAfter(linesBefore, new RegExp(`${model} .*client closed`))).toBe(true);
  });
});

describe('a slow reader: back-pressure reaches the upstream', () => {
  const TOTAL = 96 * 1024 * 1024;
  it.each([
    { name: 'passthrough chat', ep: CHAT, model: 'gpt-test', end: 'data: [DONE]' },
    { name: 'chat translated from anthropic', ep: CHAT, model: 'claude-test', end: 'data: [DONE]' },
    { name: 'messages translated from openai responses', ep: MESSAGES, model: 'gpt-test', end: 'event: message_stop' },
  ])('$name: the upstream writes stall while the client reads nothing, and all arrives once it reads', async ({ ep, model, end }) => {
    const report: FloodReport = { written: 0, deltas: 0, done: false };
    upstream.once(floodStream(TOTAL, report));
    const heapBefore = liveHeap();
    const res = await request(`${gw.url}${ep.path}`, {
      method: 'POST',
      headers: ep.headers(),
      body: JSON.stringify({ ...ep.body(model), max_tokens: 100_000, stream: true }),
    });
    expect(res.statusCode).toBe(200);
    // Not reading: the gateway's writes to us fill the socket, so it must stop reading the upstream.
    expect(await eventually(() => report.stalledAt !== undefined || report.done, 15_000)).toBe(true);
    expect(report.stalledAt, 'the upstream wrote the whole flood without ever waiting').toBeDefined();
    // Kernel buffers on both hops hold some megabytes (about 8 MiB here); without back-pressure all 96 MiB would go.
    expect(report.stalledAt!).toBeLessThan(TOTAL / 2);
    // Live objects, after a full collection: the gateway holds what is in flight, not the flood.
    expect(liveHeap() - heapBefore).toBeLessThan(32 * 1024 * 1024);

    // Reading now: every delta arrives, whole, then the protocol's end.
    let tildes = 0;
    let tail = '';
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      for (const byte of chunk) if (byte === 0x7e) tildes++;
      tail = (tail + chunk.toString('latin1')).slice(-4096);
    }
    expect(report.done).toBe(true);
    expect(tildes).toBe(report.deltas * FLOOD_DELTA);
    expect(tail).toContain(end);
    expect(tail).not.toMatch(/"error"/);
  });
});

describe('slowloris: a client that sends its request slowly', () => {
  let slow: TestGateway;
  beforeAll(async () => {
    slow = await startGateway(robustConfig(upstream.url, { server: { headersTimeoutMs: 1000, requestTimeoutMs: 2000 } }), {
      // Node checks the timeouts on this interval, read when the server starts listening (the gateway's: 1 s);
      // a documented createServer option that @types/node does not list as a property.
      beforeListen: (g) => ((g.server as typeof g.server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = 250),
    });
  });
  afterAll(() => slow.close());

  const trickle = (client: RawClient, bytes: () => string, everyMs: number) => {
    const timer = setInterval(() => void client.write(bytes()), everyMs);
    void client.closed.then(() => clearInterval(timer));
    return () => clearInterval(timer);
  };

  it('a client trickling header lines is cut at headersTimeout (408) while others are served', async () => {
    const client = await RawClient.open(slow.url);
    await client.write('POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    let n = 0;
    const stop = trickle(client, () => `x-pad-${n++}: ${'y'.repeat(10)}\r\n`, 100);
    // Others are not blocked meanwhile.
    await expectStillServing(slow);
    const answer = await client.response(6000);
    stop();
    expect(answer.status).toBe(408);
    expectError(answer, 408, 'openai');
    expect(await client.closesWithin(2000)).toBe(true);
    await expectStillServing(slow);
  });

  it('a connection that never sends a byte is closed at headersTimeout', async () => {
    const client = await RawClient.open(slow.url);
    expect(await client.closesWithin(6000)).toBe(true);
    await expectStillServing(slow);
  });

  it('a client trickling its body is cut at requestTimeout', async () => {
    const client = await RawClient.open(slow.url);
    await client.write(requestHead('POST', CHAT.path, { ...CHAT.headers(), 'content-length': 10_000 }));
    const stop = trickle(client, () => ' ', 100);
    await expectStillServing(slow);
    expect(await client.closesWithin(8000)).toBe(true);
    stop();
    await expectStillServing(slow);
  });
});

describe('oversized bodies are 413 in the caller shape, and the connection closes', () => {
  it.each(ENDPOINTS)('$name: a declared content-length over the limit is refused before the body is sent', async (ep) => {
    const client = await RawClient.open(gw.url);
    await client.write(`${requestHead('POST', ep.path, { ...ep.headers(), 'content-length': 10 * MAX_BODY })}{"model":`);
    const res = await client.response();
    const json = expectError(res, 413, ep.family);
    expect(errorOf(json).message).toMatch(/larger than the gateway's limit of 1048576 bytes/);
    expect(res.headers.connection).toBe('close');
    expect(await client.closesWithin(3000)).toBe(true);
  });

  it.each(ENDPOINTS)('$name: a chunked body is refused once it passes the limit', async (ep) => {
    const client = await RawClient.open(gw.url);
    await client.write(requestHead('POST', ep.path, { ...ep.headers(), 'transfer-encoding': 'chunked' }));
    const chunk = 'x'.repeat(8 * 1024);
    let sent = 0;
    let res: Awaited<ReturnType<RawClient['response']>> | undefined;
    const answered = client.response(10_000).then((r) => (res = r));
    while (res === undefined && client.isOpen && sent < 40 * MAX_BODY) {
      await client.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      sent += chunk.length;
      await sleep(1);
    }
    await answered;
    expect(sent).toBeGreaterThan(MAX_BODY);
    expect(sent).toBeLessThan(20 * MAX_BODY);
    expectError(res!, 413, ep.family);
    expect(await client.closesWithin(3000)).toBe(true);
  });

  it.each(ENDPOINTS)('$name: a body of exactly the limit is accepted', async (ep) => {
    const base = JSON.stringify(ep.body('echo', ''));
    // Pad the text so the whole body is MAX_BODY bytes.
    const body = base.replace('"content":""', `"content":"${'a'.repeat(MAX_BODY - base.length)}"`).replace('"input":""', `"input":"${'a'.repeat(MAX_BODY - base.length)}"`);
    expect(Buffer.byteLength(body)).toBe(MAX_BODY);
    const res = await send(ep, body);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
  });
});

describe('bodies that are not a JSON object', () => {
  const MALFORMED = [
    ['an empty body', '', /empty/],
    ['a truncated object', '{"model":"echo","messages":[', /not valid JSON/],
    ['plain text', 'hello there', /not valid JSON/],
    ['trailing garbage', '{"model":"echo"} and more', /not valid JSON/],
    ['single quotes', "{'model':'echo'}", /not valid JSON/],
    ['a trailing comma', '{"model":"echo",}', /not valid JSON/],
    ['a byte-order mark', '\ufeff{"model":"echo"}', /not valid JSON/],
    ['NaN', '{"model":"echo","max_tokens":NaN}', /not valid JSON/],
    ['a JSON array', '[{"model":"echo"}]', /must be a JSON object/],
    ['a JSON string', '"echo"', /must be a JSON object/],
    ['a JSON number', '42', /must be a JSON object/],
    ['JSON null', 'null', /must be a JSON object/],
    ['JSON true', 'true', /must be a JSON object/],
  ] as const;
  const cases = ENDPOINTS.flatMap((ep) => MALFORMED.map(([what, body, message]) => ({ ep, what, body, message, name: ep.name })));

  it.each(cases)('$name: $what is 400', async ({ ep, body, message }) => {
    const json = expectError(await send(ep, body), 400, ep.family);
    expect(errorOf(json).message).toMatch(message);
    expect(upstream.received).toHaveLength(0);
  });
});

describe('deeply nested JSON', () => {
  const arrays = (depth: number, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth);
  const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const parts = (depth: number) => '{"type":"text","text":"x","content":['.repeat(depth) + ']}'.repeat(depth);
  /** `ep`'s valid body with `value` (JSON text) spliced in at `where`. */
  function bodyWith(ep: EndpointCase, model: string, where: 'extra field' | 'message content', value: string): string {
    if (where === 'extra field') return JSON.stringify(ep.body(model)).replace(/}$/, `,"x":${value}}`);
    return ep === RESPONSES
      ? `{"model":"${model}","input":[{"role":"user","content":[${value}]}]}`
      : JSON.stringify(ep.body(model)).replace('"content":"hi"', `"content":[${value}]`);
  }
  const MODELS = ['echo', 'echo-chat', 'echo-messages', 'echo-responses'];
  const SHAPES = [
    { what: '100,000 nested arrays in a field', where: 'extra field' as const, value: arrays(100_000) },
    { what: '100,000 nested objects in a field', where: 'extra field' as const, value: objects(100_000) },
    { what: '20,000 nested content parts', where: 'message content' as const, value: parts(20_000) },
  ];
  const cases = ENDPOINTS.flatMap((ep) => MODELS.flatMap((model) => SHAPES.map((s) => ({ ...s, ep, model, name: ep.name }))));

  it.each(cases)('$name to $model: $what is 400, not a stack overflow', async ({ ep, model, where, value }) => {
    const json = expectError(await send(ep, bodyWith(ep, model, where, value)), 400, ep.family);
    expect(errorOf(json).message).toMatch(/nested more than \d+ levels/);
  });

  it.each(ENDPOINTS)('$name: a top-level array 100,000 deep is 400', async (ep) => {
    expectError(await send(ep, arrays(100_000)), 400, ep.family);
  });

  const boundary = ENDPOINTS.flatMap((ep) => MODELS.map((model) => ({ ep, model, name: ep.name })));
  it.each(boundary)('$name to $model: nesting of exactly the limit is served, one more level is refused', async ({ ep, model }) => {
    // The body object is level 1, so a field may nest MAX_JSON_DEPTH - 1 levels.
    const ok = await send(ep, bodyWith(ep, model, 'extra field', arrays(MAX_JSON_DEPTH - 1)));
    expect(ok.status, ok.text.slice(0, 300)).toBe(200);
    expectError(await send(ep, bodyWith(ep, model, 'extra field', arrays(MAX_JSON_DEPTH))), 400, ep.family);
    // Content parts nested as deep as allowed (body, messages, message and content array take 4 levels,
    // each part 2) go through validation, translation and echo without a 5xx.
    const deepParts = await send(ep, bodyWith(ep, model, 'message content', parts((MAX_JSON_DEPTH - 4) / 2)));
    expect(deepParts.status, deepParts.text.slice(0, 300)).toBeLessThan(500);
    if (deepParts.status >= 400) expectError(deepParts, deepParts.status, ep.family);
  });

  it('the depth scan skips brackets inside strings, escaped quotes included', () => {
    const inStrings = Buffer.from(JSON.stringify({ a: '['.repeat(1000), b: '\\"[[[[', c: ['"]]]]"', '{{{{'] }));
    expect(nestedDeeperThan(inStrings, 3)).toBe(false);
    expect(nestedDeeperThan(Buffer.from(arrays(4)), 3)).toBe(true);
    expect(nestedDeeperThan(Buffer.from(arrays(3)), 3)).toBe(false);
    // An escaped quote in a key, an escaped backslash ending a value: four levels.
    expect(nestedDeeperThan(Buffer.from(`{"k\\"[":[[{"v":"\\\\"}]]}`), 4)).toBe(false);
    expect(nestedDeeperThan(Buffer.from(`{"k\\"[":[[{"v":"\\\\"}]]}`), 3)).toBe(true);
  });

  /** Logs one refused request whose captured body is 100,000 levels deep. */
  async function logDeepBody(options: { verbose: boolean; logFile: boolean }): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-deep-'));
    const logger = createLogger({
      out: { write: () => true },
      chalk: new Chalk({ level: 0 }),
      verbose: options.verbose,
      ...(options.logFile ? { logFile: join(dir, 'log.jsonl') } : {}),
    });
    const record: RequestRecord = { id: 'req_1', startedAt: Date.now(), start: performance.now(), method: 'POST', path: CHAT.path, status: 400 };
    record.exchange = newExchange({ 'content-type': 'application/json' }, 1024 * 1024);
    capture(record.exchange, record.exchange.request, 1, Buffer.from(`{"x":${arrays(100_000)}}`));
    try {
      expect(() => logger.request(record)).not.toThrow();
    } finally {
      await logger.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('a logger with --log-file survives a deeply nested captured body', () => logDeepBody({ verbose: false, logFile: true }));

  // A deep body refused with 400 is still captured; logging it must not walk it recursively.
  it('a logger with --verbose survives a deeply nested captured body', () => logDeepBody({ verbose: true, logFile: false }));
});

describe('wrong types in every validated field', () => {
  type Mutation = readonly [field: string, value: unknown, param: string, message: RegExp];
  const MODEL: Mutation[] = [
    ['model', undefined, 'model', /Missing required parameter: `model`/],
    ['model', 42, 'model', /`model` must be a non-empty string/],
    ['model', '', 'model', /`model` must be a non-empty string/],
    ['model', '   ', 'model', /`model` must be a non-empty string/],
    ['model', null, 'model', /`model` must be a non-empty string/],
    ['model', ['echo'], 'model', /`model` must be a non-empty string/],
    ['model', { id: 'echo' }, 'model', /`model` must be a non-empty string/],
  ];
  const STREAM: Mutation[] = [
    ['stream', 'true', 'stream', /`stream` must be a boolean/],
    ['stream', 1, 'stream', /`stream` must be a boolean/],
    ['stream', {}, 'stream', /`stream` must be a boolean/],
  ];
  const MESSAGES_FIELD: Mutation[] = [
    ['messages', undefined, 'messages', /Missing required parameter: `messages`/],
    ['messages', 'hi', 'messages', /`messages` must be an array/],
    ['messages', { role: 'user', content: 'hi' }, 'messages', /`messages` must be an array/],
    ['messages', null, 'messages', /`messages` must be an array/],
    ['messages', [], 'messages', /at least one message/],
    ['messages', [1], 'messages[0]', /`messages\[0\]` must be an object/],
    ['messages', ['hi'], 'messages[0]', /`messages\[0\]` must be an object/],
    ['messages', [null], 'messages[0]', /`messages\[0\]` must be an object/],
    ['messages', [[{ role: 'user' }]], 'messages[0]', /`messages\[0\]` must be an object/],
    ['messages', [{ content: 'hi' }], 'messages[0].role', /`messages\[0\]\.role` must be a non-empty string/],
    ['messages', [{ role: 1, content: 'hi' }], 'messages[0].role', /`messages\[0\]\.role` must be a non-empty string/],
    ['messages', [{ role: '', content: 'hi' }], 'messages[0].role', /`messages\[0\]\.role` must be a non-empty string/],
    ['messages', [{ role: 'user', content: 'a' }, { role: null }], 'messages[1].role', /`messages\[1\]\.role`/],
  ];
  const INPUT: Mutation[] = [
    ['input', undefined, 'input', /Missing required parameter: `input`/],
    ['input', 42, 'input', /`input` must be a string or an array/],
    ['input', { role: 'user', content: 'hi' }, 'input', /`input` must be a string or an array/],
    ['input', null, 'input', /`input` must be a string or an array/],
    ['input', true, 'input', /`input` must be a string or an array/],
  ];
  const MAX_TOKENS: Mutation[] = [
    ['max_tokens', undefined, 'max_tokens', /max_tokens: Field required/],
    ['max_tokens', '64', 'max_tokens', /max_tokens: must be a positive integer/],
    ['max_tokens', 0, 'max_tokens', /positive integer/],
    ['max_tokens', -1, 'max_tokens', /positive integer/],
    ['max_tokens', 1.5, 'max_tokens', /positive integer/],
    ['max_tokens', null, 'max_tokens', /positive integer/],
    ['max_tokens', true, 'max_tokens', /positive integer/],
    ['max_tokens', Number.POSITIVE_INFINITY, 'max_tokens', /positive integer/], // sent as the JSON text 1e400, which parses as Infinity
  ];
  const TABLE: [EndpointCase, Mutation[]][] = [
    [CHAT, [...MODEL, ...MESSAGES_FIELD, ...STREAM]],
    [RESPONSES, [...MODEL, ...INPUT, ...STREAM]],
    [MESSAGES, [...MODEL, ...MESSAGES_FIELD, ...MAX_TOKENS, ...STREAM]],
    [COUNT_TOKENS, [...MODEL, ...MESSAGES_FIELD]],
  ];
  const cases = TABLE.flatMap(([ep, mutations]) =>
    mutations.flatMap(([field, value, param, message]) =>
      // Each mutation both on the native echo model and on one reached through translation.
      ['echo', 'echo-chat'].map((model) => ({ ep, field, value, param, message, model, name: ep.name, shown: value === undefined ? 'missing' : JSON.stringify(value) })),
    ),
  );

  it.each(cases)('$name ($model): $field = $shown is 400 naming the field', async ({ ep, field, value, param, message, model }) => {
    const body: Record<string, unknown> = { ...ep.body(model) };
    if (value === undefined) delete body[field];
    else body[field] = value;
    // 1e400 cannot be written by JSON.stringify; splice it in as text.
    const text = Number.isFinite(value) || typeof value !== 'number' ? JSON.stringify(body) : JSON.stringify(body).replace('"max_tokens":null', '"max_tokens":1e400');
    const json = expectError(await send(ep, text), 400, ep.family);
    expect(errorOf(json).message).toMatch(message);
    if (ep.family === 'openai') expect(errorOf(json).param).toBe(param);
  });

  const headerCases = [
    { name: 'messages without anthropic-version', ep: MESSAGES, drop: 'anthropic-version', set: {}, status: 400, message: /Missing required header: anthropic-version/ },
    { name: 'messages with anthropic-version "latest"', ep: MESSAGES, drop: '', set: { 'anthropic-version': 'latest' }, status: 400, message: /Invalid anthropic-version header/ },
    { name: 'count_tokens with anthropic-version of JSON', ep: COUNT_TOKENS, drop: '', set: { 'anthropic-version': '{"a":1}' }, status: 400, message: /Invalid anthropic-version/ },
    { name: 'chat without a key', ep: CHAT, drop: 'authorization', set: {}, status: 401, message: /Missing API key/ },
    { name: 'chat with a Basic credential', ep: CHAT, drop: '', set: { authorization: 'Basic Zm9vOmJhcg==' }, status: 401, message: /Missing API key/ },
    { name: 'responses with an unknown key', ep: RESPONSES, drop: '', set: { authorization: 'Bearer not-a-key' }, status: 401, message: /Invalid API key/ },
    { name: 'responses with "Bearer" and no key', ep: RESPONSES, drop: '', set: { authorization: 'Bearer ' }, status: 401, message: /API key/ },
    { name: 'messages with an unknown x-api-key', ep: MESSAGES, drop: '', set: { 'x-api-key': 'not-a-key' }, status: 401, message: /Invalid API key/ },
    { name: 'messages with an x-api-key of 8 KB', ep: MESSAGES, drop: '', set: { 'x-api-key': 'k'.repeat(8192) }, status: 401, message: /Invalid API key/ },
  ];
  it.each(headerCases)('$name is $status', async ({ ep, drop, set, status, message }) => {
    const headers: Record<string, string> = { ...ep.headers(), ...set };
    if (drop) delete headers[drop];
    const json = expectError(await send(ep, JSON.stringify(ep.body('echo')), headers), status, ep.family);
    expect(errorOf(json).message).toMatch(message);
  });
});

describe('invalid UTF-8 in the body', () => {
  const BAD = [
    ['a lone 0xFF byte', Buffer.from([0xff])],
    ['an overlong slash', Buffer.from([0xc0, 0xaf])],
    ['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
    ['a truncated euro sign', Buffer.from([0xe2, 0x82])],
    ['a code point past U+10FFFF', Buffer.from([0xf4, 0x90, 0x80, 0x80])],
  ] as const;
  const cases = ENDPOINTS.flatMap((ep) => BAD.map(([what, bytes]) => ({ ep, what, bytes, name: ep.name })));

  it.each(cases)('$name: $what inside a string is 400, and nothing goes upstream', async ({ ep, bytes }) => {
    const [before, after] = JSON.stringify(ep.body(ep.family === 'openai' ? 'gpt-test' : 'claude-test', 'SPLIT')).split('SPLIT');
    const body = Buffer.concat([Buffer.from(before!), Buffer.from('caf'), bytes, Buffer.from(after!)]);
    const json = expectError(await send(ep, body), 400, ep.family);
    expect(errorOf(json).message).toMatch(/not valid UTF-8/);
    expect(upstream.received).toHaveLength(0);
  });

  it('valid multi-byte UTF-8 everywhere is served unchanged', async () => {
    const text = 'héllo → 世界 🎉 \u2028 \u0000';
    const res = await send(CHAT, JSON.stringify(CHAT.body('echo', text)));
    expect(res.status).toBe(200);
    expect((res.json as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe(text);
  });
});

describe('hostile headers', () => {
  it('headers over 16 KB in all are refused by node:http with 431 and the connection closes', async () => {
    const client = await RawClient.open(gw.url);
    await client.write(`${requestHead('POST', CHAT.path, { ...CHAT.headers(), 'x-padding': 'p'.repeat(20_000), 'content-length': 2 })}{}`);
    const res = await client.response();
    expect(res.status).toBe(431);
    // Refused before the handler, still answered in the caller's shape.
    expectError(res, 431, 'openai');
    expect(await client.closesWithin(2000)).toBe(true);
  });

  it.each([
    ['a Messages path', () => requestHead('POST', MESSAGES.path, { 'x-padding': 'p'.repeat(20_000), 'content-length': 2 })],
    ['the anthropic-version header on another path', () => requestHead('POST', '/nowhere', { 'anthropic-version': '2023-06-01', 'x-padding': 'p'.repeat(20_000), 'content-length': 2 })],
  ])('a 431 before the handler is in Anthropic shape when the raw request shows %s', async (_name, head) => {
    const client = await RawClient.open(gw.url);
    await client.write(`${head()}{}`);
    const res = await client.response();
    expectError(res, 431, 'anthropic');
  });

  it('headers of 12 KB in all are served', async () => {
    const res = await send(CHAT, JSON.stringify(CHAT.body('echo', 'big headers')), { ...CHAT.headers(), 'x-padding': 'p'.repeat(12_000) });
    expect(res.status).toBe(200);
  });

  // Request smuggling and header injection: node:http's parser refuses each with 400 and closes.
  const SMUGGLING = [
    ['a CR inside a header value', 'x-a: b\rinjected: 1\r\n'],
    ['a NUL inside a header value', 'x-a: b\0c\r\n'],
    ['an obs-fold continuation line', 'x-a: b\r\n injected: 1\r\n'],
    ['a space before the colon', 'authorization : Bearer x\r\n'],
    ['a header name with a parenthesis', 'x(a): b\r\n'],
    ['content-length and transfer-encoding together', 'transfer-encoding: chunked\r\n'],
    ['two different content-lengths', 'content-length: 3\r\n'],
  ] as const;
  it.each(SMUGGLING)('%s is 400 and the connection closes', async (_what, extra) => {
    const body = JSON.stringify(CHAT.body('echo'));
    const head = `POST ${CHAT.path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${GATEWAY_KEY}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n`;
    const client = await RawClient.open(gw.url);
    await client.write(head + body);
    const res = await client.response();
    expect(res.status).toBe(400);
    expect(await client.closesWithin(2000)).toBe(true);
    expect(upstream.received).toHaveLength(0);
  });

  it('a user-agent with Latin-1 bytes reaches the upstream without failing the request', async () => {
    const body = Buffer.from(JSON.stringify(CHAT.body('gpt-test')));
    const head = Buffer.concat([
      Buffer.from(`POST ${CHAT.path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${GATEWAY_KEY}\r\ncontent-type: application/json\r\n`),
      Buffer.from('user-agent: caf\xe9-client/1.0\r\n', 'latin1'),
      Buffer.from(`content-length: ${body.length}\r\nconnection: close\r\n\r\n`),
    ]);
    const client = await RawClient.open(gw.url);
    await client.write(Buffer.concat([head, body]));
    const res = await client.response();
    client.destroy();
    expect(res.status, res.text).toBeLessThan(500);
  });

  // Client-chosen text goes into the log line with its control characters escaped.
  it('a model name with a newline cannot forge a log line', async () => {
    const forged = 'nope\n12:00:00 200 POST /v1/forged-line gpt-test → openai/gpt-test dev:admin 1ms';
    const res = await send(CHAT, JSON.stringify(CHAT.body(forged)));
    expectError(res, 404, 'openai');
    expect(await eventually(() => gw.output.join('').includes('/v1/forged-line'))).toBe(true);
    expect(gw.lines().filter((l) => l.startsWith('12:00:00 200 POST /v1/forged-line'))).toEqual([]);
    expect(gw.lines().some((l) => l.includes('nope\\n12:00:00 200 POST /v1/forged-line'))).toBe(true);
  });
});

describe('unknown paths and methods', () => {
  const anthropic = { 'anthropic-version': '2023-06-01' };
  const ROUTES = [
    { method: 'GET', path: '/v1/chat/completions', headers: {}, status: 405, family: 'openai', allow: 'POST' },
    { method: 'PUT', path: '/v1/responses', headers: {}, status: 405, family: 'openai', allow: 'POST' },
    { method: 'DELETE', path: '/v1/messages', headers: anthropic, status: 405, family: 'anthropic', allow: 'POST' },
    { method: 'GET', path: '/v1/messages/count_tokens', headers: {}, status: 405, family: 'anthropic', allow: 'POST' },
    { method: 'OPTIONS', path: '/v1/chat/completions', headers: {}, status: 405, family: 'openai', allow: 'POST' },
    { method: 'POST', path: '/v1/models', headers: {}, status: 405, family: 'openai', allow: 'GET, HEAD' },
    { method: 'PATCH', path: '/', headers: {}, status: 405, family: 'openai', allow: 'GET, HEAD' },
    { method: 'POST', path: '/v2/chat/completions', headers: {}, status: 404, family: 'openai' },
    { method: 'POST', path: '/v1/completions', headers: {}, status: 404, family: 'openai' },
    { method: 'POST', path: '/v1/messages/batches', headers: anthropic, status: 404, family: 'anthropic' },
    { method: 'POST', path: '/v1/v1/messages', headers: anthropic, status: 404, family: 'anthropic' },
    { method: 'POST', path: '/v1/../v1/chat/completions', headers: {}, status: 404, family: 'openai' },
    { method: 'POST', path: `/v1/${'a'.repeat(8000)}`, headers: {}, status: 404, family: 'openai' },
    { method: 'GET', path: '/v1/chat/completions%00', headers: {}, status: 404, family: 'openai' },
  ] as const;

  it.each(ROUTES)('$method $path is $status in the $family shape', async ({ method, path, headers, status, family, ...rest }) => {
    // Raw, so the path goes out exactly as written (a URL parser would resolve `..`).
    const res = await rawRequest(gw.url, method, path, { ...headers, authorization: `Bearer ${GATEWAY_KEY}` }, method === 'GET' ? '' : '{}');
    expectError(res, status, family);
    if ('allow' in rest) expect(res.headers.allow).toBe(rest.allow);
  });

  it('an unknown method is refused by node:http with 400', async () => {
    const res = await rawRequest(gw.url, 'FOO', CHAT.path, CHAT.headers(), '{}');
    expect(res.status).toBe(400);
  });

  it('GET /v1/models/%ZZ is a 4xx, not a 500', async () => {
    const res = await call(`${gw.url}/v1/models/%ZZ`, { method: 'GET', headers: { authorization: `Bearer ${GATEWAY_KEY}` } });
    expect(res.status).toBeLessThan(500);
    expectError(res, res.status, 'openai');
  });
});
