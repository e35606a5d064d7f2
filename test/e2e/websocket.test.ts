/**
 * The Responses API over a WebSocket, as Codex speaks it (`supports_websockets = true`): the
 * upgrade on /v1/responses with the gateway key, `response.create` messages answered with the
 * stream's events as text messages, `previous_response_id` continuing the connection's last
 * response with only the new items, native and translated; refused upgrades; a hostile client.
 */
import { readFileSync } from 'node:fs';
import { get, request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Chalk } from 'chalk';
import WebSocket from 'ws';
import { parseConfig } from '#src/config/parse.js';
import { createLogger } from '#src/log/logger.js';
import { createGateway } from '#src/server/gateway.js';
import { CANNED_TEXT, responsesFrames } from '../helpers/canned.js';
import { sendJson, startFakeUpstream, writeSlowly, type FakeUpstream } from '../helpers/fake-upstream.js';
import { CI_KEY, GATEWAY_KEY, startGateway, testConfig, waitForLines, type TestGateway } from '../helpers/start-gateway.js';

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/clients/${name}`, import.meta.url), 'utf8')) as {
    headers: Record<string, string>;
    body: Record<string, unknown>;
  };
const firstTurn = fixture('codex-0.169.0-responses-first-turn.json');
const toolTurn = fixture('codex-0.169.0-responses-function-call-output.json');
const MAX_BODY = 256 * 1024;

let upstream: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gw = await startGateway(testConfig(upstream.url, { server: { maxBodyBytes: MAX_BODY } } as never));
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

const wsUrl = (path = '/v1/responses') => `${gw.url.replace('http', 'ws')}${path}`;

/** Opens a connection as Codex does: its headers, the key as a Bearer token. */
function connect(key = GATEWAY_KEY, path?: string): Promise<WebSocket> {
  const { authorization: _a, ...codexHeaders } = firstTurn.headers;
  const headers = { ...codexHeaders, authorization: `Bearer ${key}`, 'openai-beta': 'responses_websockets=2026-02-06' };
  const ws = new WebSocket(wsUrl(path), { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** The HTTP answer to an upgrade the gateway refuses. */
function refused(headers: Record<string, string>, path?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const ws = new WebSocket(wsUrl(path), { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
    ws.once('error', () => {});
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
  });
}

/** A message from the gateway: an event of the response's stream, or an error. */
interface Event {
  readonly type: string;
  readonly delta?: string;
  readonly item?: unknown;
  readonly response?: { readonly id: string };
  readonly [field: string]: unknown;
}

/** The events that answer the next message, up to the one that ends the response. */
function nextTurn(ws: WebSocket): Promise<Event[]> {
  const events: Event[] = [];
  return new Promise((resolve, reject) => {
    const onMessage = (data: WebSocket.RawData, isBinary: boolean) => {
      if (isBinary) return reject(new Error('binary message from the gateway'));
      const event = JSON.parse(data.toString()) as Event;
      events.push(event);
      if (['response.completed', 'response.failed', 'response.incomplete', 'error'].includes(event.type)) {
        ws.off('message', onMessage);
        resolve(events);
      }
    };
    ws.on('message', onMessage);
    ws.once('close', (code) => reject(new Error(`closed (${code}) after ${JSON.stringify(events)}`)));
  });
}

function send(ws: WebSocket, message: unknown): Promise<Event[]> {
  const answer = nextTurn(ws);
  ws.send(typeof message === 'string' || Buffer.isBuffer(message) ? message : JSON.stringify(message));
  return answer;
}

/** A `response.create` as Codex sends it over a WebSocket: the create body with its type, for `model`. */
const create = (body: Record<string, unknown>, model: string, more: Record<string, unknown> = {}) => ({
  type: 'response.create',
  ...body,
  model,
  ...more,
});

const firstInput = firstTurn.body.input as unknown[];

describe('native (an OpenAI upstream over HTTP)', () => {
  it('streams each response.create as text messages and continues from previous_response_id with only the new items', async () => {
    const ws = await connect();
    const first = await send(ws, create(firstTurn.body, 'gpt-test'));
    expect(first[0]!.type).toBe('response.created');
    const completed = first.at(-1)!;
    expect(completed.type).toBe('response.completed');
    expect(first.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('')).toBe(CANNED_TEXT);
    const sent = upstream.last();
    expect(sent.url).toBe('/v1/responses');
    expect(sent.json).toMatchObject({ model: 'gpt-upstream', stream: true, input: firstInput, store: false });
    expect(sent.json).not.toHaveProperty('type');
    // The caller's headers went on as a POST's would (the key's replaced by the provider's), the handshake's did not.
    expect(sent.headers['openai-beta']).toBe('responses_websockets=2026-02-06');
    expect(sent.headers.authorization).not.toContain(GATEWAY_KEY);
    expect(sent.headers['sec-websocket-key']).toBeUndefined();
    expect(sent.headers.upgrade).toBeUndefined();

    // Codex's next request: the same fields, the id of the last response and only what came after it.
    const output = first.filter((e) => e.type === 'response.output_item.done').map((e) => e.item);
    // Codex's tool result, the one item it sends after the output it was given.
    const added = (toolTurn.body.input as Event[]).filter((i) => i.type === 'function_call_output');
    expect(added).toHaveLength(1);
    const second = await send(ws, create(firstTurn.body, 'gpt-test', { previous_response_id: completed.response!.id, input: added }));
    expect(second.at(-1)!.type).toBe('response.completed');
    const continued = upstream.last().json as Record<string, unknown>;
    expect(continued.input).toEqual([...firstInput, ...output, ...added]);
    expect(continued).not.toHaveProperty('previous_response_id');
    ws.close();
    const lines = await waitForLines(gw, 2);
    // Each message is logged as the POST it stands for, marked as a WebSocket's.
    expect(lines.slice(-2).every((l) => l.includes('/v1/responses (websocket)'))).toBe(true);
  });

  it('answers a warm-up (generate: false) without calling the upstream, and continues from it', async () => {
    const ws = await connect();
    const warm = await send(ws, create(firstTurn.body, 'gpt-test', { generate: false }));
    expect(warm.map((e) => e.type)).toEqual(['response.created', 'response.completed']);
    expect(upstream.received).toHaveLength(0);
    const answer = await send(ws, create(firstTurn.body, 'gpt-test', { previous_response_id: warm[1]!.response!.id, input: [] }));
    expect(answer.at(-1)!.type).toBe('response.completed');
    expect((upstream.last().json as Record<string, unknown>).input).toEqual(firstInput);
    expect(upstream.last().json).not.toHaveProperty('generate');
    ws.close();
  });

  it("passes an upstream's refusal on as an error message with its status, and keeps the connection", async () => {
    upstream.once((_req, res) =>
      sendJson(res, 400, { error: { message: 'Unsupported parameter: foo', type: 'invalid_request_error', param: 'foo', code: null } }),
    );
    const ws = await connect();
    const [error] = await send(ws, create(firstTurn.body, 'gpt-test'));
    expect(error).toMatchObject({ type: 'error', status: 400, error: { type: 'invalid_request_error', message: expect.stringContaining('foo') } });
    // The connection stays and serves the next response.
    const after = await send(ws, create(firstTurn.body, 'gpt-test'));
    expect(after.at(-1)!.type).toBe('response.completed');
    ws.close();
  });
});

describe('translated', () => {
  for (const [upstreamKind, model, path] of [
    ['Chat Completions', 'local-chat', '/v1/chat/completions'],
    ['Messages', 'claude-test', '/v1/messages'],
  ] as const) {
    it(`serves Codex's turns from a ${upstreamKind} upstream, the continued request carrying the earlier answer`, async () => {
      const ws = await connect();
      const body = firstTurn.body;
      const first = await send(ws, create(body, model));
      const completed = first.at(-1)!;
      expect(completed.type).toBe('response.completed');
      expect(upstream.last().url).toBe(path);
      expect(first.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('')).toBe(CANNED_TEXT);

      const extra = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and now?' }] }];
      const second = await send(ws, create(body, model, { previous_response_id: completed.response!.id, input: extra }));
      expect(second.at(-1)!.type).toBe('response.completed');
      const text = upstream.last().body.toString('utf8');
      expect(text).toContain(CANNED_TEXT);
      expect(text).toContain('and now?');
      ws.close();
    });
  }
});

describe('refused upgrades', () => {
  it('answers a missing key with 401 in the OpenAI shape', async () => {
    const got = await refused({});
    expect(got.status).toBe(401);
    expect(got.body).toMatchObject({ error: { code: 'invalid_api_key' } });
  });

  it("answers a group that may not use the Responses API with 403", async () => {
    const got = await refused({ authorization: `Bearer ${CI_KEY}` });
    expect(got.status).toBe(403);
    expect(got.body).toMatchObject({ error: { type: 'permission_error' } });
  });

  it('answers another path with 404 in its caller\'s shape', async () => {
    const got = await refused({ 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' }, '/v1/messages');
    expect(got.status).toBe(404);
    expect(got.body).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });

  it('answers an upgrade to another protocol with 426, so the client goes on over HTTP/1.1', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${gw.url}/v1/responses`, {
        method: 'GET',
        headers: { connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': 'AAMAAABkAAQAoAAAAAIAAAAA', authorization: `Bearer ${GATEWAY_KEY}` },
      });
      req.once('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.once('upgrade', () => reject(new Error('upgraded')));
      req.once('error', reject);
      req.end();
    });
    expect(status).toBe(426);
  });

  it('refuses a Host that does not name the gateway', async () => {
    const got = await refused({ authorization: `Bearer ${GATEWAY_KEY}`, host: 'evil.example' });
    expect(got.status).toBe(403);
  });
});

describe('a hostile client', () => {
  it('gets an error message for binary frames, invalid JSON, unknown types and oversized messages, and is served after', async () => {
    const ws = await connect();
    const [binary] = await send(ws, Buffer.from([1, 2, 3]));
    expect(binary).toMatchObject({ type: 'error', status: 400 });
    const [json] = await send(ws, '{"type": "response.create",');
    expect(json).toMatchObject({ type: 'error', status: 400, error: { message: expect.stringContaining('JSON') } });
    const [unknown] = await send(ws, { type: 'session.update' });
    expect(unknown).toMatchObject({ type: 'error', status: 400, error: { param: 'type' } });
    const big = 'x'.repeat(MAX_BODY + 100);
    const [tooLarge] = await send(ws, create(firstTurn.body, 'gpt-test', { instructions: big }));
    expect(tooLarge).toMatchObject({ type: 'error', status: 413 });
    expect(upstream.received).toHaveLength(0);
    const served = await send(ws, create(firstTurn.body, 'gpt-test'));
    expect(served.at(-1)!.type).toBe('response.completed');
    ws.close();
  });

  it('is cut off past the message cap without taking the server down', async () => {
    const ws = await connect();
    const closed = new Promise<number>((resolve) => ws.once('close', resolve));
    ws.on('error', () => {});
    ws.send('x'.repeat(MAX_BODY + 1024 * 1024));
    expect(await closed).toBe(1009);
    const other = await connect();
    expect((await send(other, create(firstTurn.body, 'gpt-test'))).at(-1)!.type).toBe('response.completed');
    other.close();
  });
});

describe('the connection', () => {
  it('is closed after the idle timeout', async () => {
    const gateway = createGateway({
      config: parseConfig(testConfig(upstream.url), { env: {} }),
      logger: createLogger({ out: { write: () => {} }, chalk: new Chalk({ level: 0 }) }),
      webSocketIdleMs: 150,
    });
    const url = await gateway.listen(0, '127.0.0.1');
    const ws = new WebSocket(`${url.replace('http', 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } });
    const code = await new Promise<number>((resolve) => ws.once('close', resolve));
    expect(code).toBe(1000);
    await gateway.close(100);
  });

  describe('past its lifetime', () => {
    const LIFETIME_MS = 250;
    let gateway: ReturnType<typeof createGateway>;
    let url: string;
    beforeAll(async () => {
      gateway = createGateway({
        config: parseConfig(testConfig(upstream.url), { env: {} }),
        logger: createLogger({ out: { write: () => {} }, chalk: new Chalk({ level: 0 }) }),
        webSocketMaxLifetimeMs: LIFETIME_MS,
      });
      url = await gateway.listen(0, '127.0.0.1');
    });
    afterAll(() => gateway.close(100));

    const open = async () => {
      const started = performance.now();
      const ws = new WebSocket(`${url.replace('http', 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } });
      const closed = new Promise<{ code: number; reason: string; atMs: number }>((resolve) =>
        ws.once('close', (code, reason) => resolve({ code, reason: reason.toString(), atMs: performance.now() - started })),
      );
      await new Promise((resolve) => ws.once('open', resolve));
      return { ws, closed };
    };

    it('is closed when no response runs', async () => {
      const { closed } = await open();
      const got = await closed;
      expect(got).toMatchObject({ code: 1000, reason: 'connection lifetime reached' });
      expect(got.atMs).toBeGreaterThanOrEqual(LIFETIME_MS - 10);
    });

    it('is closed once the response running at that time has ended, never in the middle of it', async () => {
      upstream.once((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        void writeSlowly(res, responsesFrames('gpt-upstream'), 40).then(() => res.end());
      });
      const { ws, closed } = await open();
      let closedDuringTurn = false;
      void closed.then(() => {
        closedDuringTurn = true;
      });
      const turn = await send(ws, create(firstTurn.body, 'gpt-test'));
      expect(closedDuringTurn).toBe(false);
      expect(turn.at(-1)!.type).toBe('response.completed');
      expect(turn.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('')).toBe(CANNED_TEXT);
      const got = await closed;
      expect(got).toMatchObject({ code: 1000, reason: 'connection lifetime reached' });
      // The stream outlasted the lifetime: the close waited for it.
      expect(got.atMs).toBeGreaterThan(LIFETIME_MS * 1.5);
    });
  });

  it('counts against server.maxConnections while open, and is closed by the gateway closing', async () => {
    const written = testConfig(upstream.url, { server: { maxConnections: 1 } } as never);
    const gateway = createGateway({
      config: parseConfig(written, { env: {} }),
      logger: createLogger({ out: { write: () => {} }, chalk: new Chalk({ level: 0 }) }),
    });
    const url = await gateway.listen(0, '127.0.0.1');
    const health = () =>
      new Promise<number | string>((resolve) => {
        get(`${url}/health`, { agent: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
      });
    const ws = new WebSocket(`${url.replace('http', 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } });
    await new Promise((resolve) => ws.once('open', resolve));
    // The one place is the WebSocket's, and it is never idle: a new connection is refused rather than it shed.
    expect(await health()).toBe('ECONNRESET');
    expect(ws.readyState).toBe(WebSocket.OPEN);
    const closed = new Promise<number>((resolve) => ws.once('close', resolve));
    await gateway.close(100);
    expect(await closed).toBe(1001);
  });
});
