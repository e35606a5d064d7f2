/**
 * Issue 21, finding 8 and part of 15: who may reach the gateway and how keys are read.
 * Host and Origin are checked before anything else (DNS rebinding, cross-origin pages); wrong
 * keys are throttled per client address; `Expect: 100-continue` is answered only after the
 * request is authenticated; a key header sent twice is refused; a key is trimmed of space and
 * tab only. Every refusal is in the caller's shape, and the gateway serves normally after each.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createInspector } from '#src/inspector/inspector.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { CHAT, MESSAGES, RESPONSES, RawClient, errorOf, expectError, robustConfig, type EndpointCase, type RawResponse } from './helpers.js';

const ALLOWED = 'gateway.test';

let upstream: FakeUpstream;
let gw: TestGateway;
let port: string;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gw = await startGateway(robustConfig(upstream.url, { server: { allowedHosts: [ALLOWED.toUpperCase()] } }));
  port = new URL(gw.url).port;
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});

/** A normal request through each SDK still works. */
async function expectStillServing(target: TestGateway = gw): Promise<void> {
  const openai = new OpenAI({ baseURL: `${target.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
  const chat = await openai.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'still here' }] });
  expect(chat.choices[0]?.message.content).toBe('still here');
  const anthropic = new Anthropic({ baseURL: target.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
  const message = await anthropic.messages.create({ model: 'echo', max_tokens: 16, messages: [{ role: 'user', content: 'still here' }] });
  expect(message.content[0]).toMatchObject({ type: 'text', text: 'still here' });
}
afterEach(async () => expectStillServing());

interface Head {
  readonly host?: string | null;
  /** Header lines as they go on the wire (latin1). */
  readonly lines?: readonly string[];
  /** The endpoint's usual key headers; false leaves them out. */
  readonly key?: boolean;
  readonly method?: string;
  readonly path?: string;
  readonly version?: string;
}

function head(ep: EndpointCase, body: string, h: Head = {}): string {
  const headers = Object.entries(ep.headers())
    .filter(([name]) => h.key !== false || (name !== 'authorization' && name !== 'x-api-key'))
    .map(([name, value]) => `${name}: ${value}`);
  const lines = [
    `${h.method ?? 'POST'} ${h.path ?? ep.path} ${h.version ?? 'HTTP/1.1'}`,
    ...(h.host === null ? [] : [`host: ${h.host ?? `127.0.0.1:${port}`}`]),
    ...headers,
    ...(h.lines ?? []),
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
  ];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** One request on a fresh connection, sent as raw bytes (latin1, so any byte can be written). */
async function send(ep: EndpointCase, h: Head = {}, target: TestGateway = gw): Promise<RawResponse> {
  const body = JSON.stringify(ep.body('echo'));
  const client = await RawClient.open(target.url);
  try {
    await client.write(Buffer.from(head(ep, body, h) + body, 'latin1'));
    return await client.response();
  } finally {
    client.destroy();
  }
}

const API: readonly EndpointCase[] = [CHAT, RESPONSES, MESSAGES];

describe('Host: only names of this machine, when listening on loopback (DNS rebinding)', () => {
  const refused = ['evil.example', 'evil.example:PORT', '127.0.0.1.evil.example', 'localhost.evil', 'localhost.evil:PORT', '127.0.0.256', '[::2]:PORT', 'xlocalhost', 'gateway.test.evil'];
  const accepted = ['localhost:PORT', 'LOCALHOST', '127.0.0.1:PORT', '127.1.2.3:PORT', '[::1]:PORT', 'app.localhost:PORT', 'gateway.test', 'Gateway.Test:PORT'];

  it.each(API.flatMap((ep) => refused.map((host) => ({ ep, host, name: ep.name }))))('$name, Host $host: 403 in the caller shape', async ({ ep, host }) => {
    const res = await send(ep, { host: host.replace('PORT', port) });
    expect(errorOf(expectError(res, 403, ep.family)).message).toMatch(/Host .* is not accepted/);
  });

  it.each(API.flatMap((ep) => accepted.map((host) => ({ ep, host, name: ep.name }))))('$name, Host $host: served', async ({ ep, host }) => {
    const res = await send(ep, { host: host.replace('PORT', port) });
    expect(res.status, res.text).toBe(200);
  });

  it.each(API)('$name: refused before authentication (no key, evil host: 403, not 401)', async (ep) => {
    expectError(await send(ep, { host: 'evil.example', key: false }), 403, ep.family);
  });

  it('GET /v1/models and unknown paths are refused too, before routing', async () => {
    expectError(await send(CHAT, { host: 'evil.example', method: 'GET', path: '/v1/models' }), 403, 'openai');
    expectError(await send(CHAT, { host: 'evil.example', path: '/nope' }), 403, 'openai');
  });

  it.each(API)('$name: HTTP/1.1 without Host: 400 in the caller shape', async (ep) => {
    expect(errorOf(expectError(await send(ep, { host: null }), 400, ep.family)).message).toMatch(/Host/);
  });

  it.each(API)('$name: two Host headers: 400 in the caller shape', async (ep) => {
    expectError(await send(ep, { lines: ['host: evil.example'] }), 400, ep.family);
  });
});

describe('Origin: only the gateway\'s own', () => {
  const refused = ['http://evil.example', 'null', 'http://127.0.0.1:1', 'https://localhost.evil', 'file://', 'not an origin'];
  const accepted = ['http://127.0.0.1:PORT', 'http://gateway.test', 'https://gateway.test:8443'];

  it.each(API.flatMap((ep) => refused.map((origin) => ({ ep, origin, name: ep.name }))))('$name, Origin $origin: 403 in the caller shape', async ({ ep, origin }) => {
    const res = await send(ep, { lines: [`origin: ${origin}`] });
    expect(errorOf(expectError(res, 403, ep.family)).message).toMatch(/Origin .* is not accepted/);
  });

  it.each(API.flatMap((ep) => accepted.map((origin) => ({ ep, origin, name: ep.name }))))('$name, Origin $origin: served', async ({ ep, origin }) => {
    const res = await send(ep, { lines: [`origin: ${origin.replace('PORT', port)}`] });
    expect(res.status, res.text).toBe(200);
  });

  it('the page\'s own origin through localhost is served', async () => {
    expect((await send(CHAT, { host: `localhost:${port}`, lines: [`origin: http://localhost:${port}`] })).status).toBe(200);
  });
});

describe('Expect: 100-continue is answered after authentication', () => {
  /** Sends only the head, with Expect, and returns the first answer (a 100 would come first). */
  async function expectFirst(ep: EndpointCase, h: Head): Promise<{ first: RawResponse; client: RawClient; body: string }> {
    const body = JSON.stringify(ep.body('echo'));
    const client = await RawClient.open(gw.url);
    await client.write(Buffer.from(head(ep, body, { ...h, lines: [...(h.lines ?? []), 'expect: 100-continue'] }), 'latin1'));
    return { first: await client.response(), client, body };
  }

  it.each(API)('$name without a key: 401 in the caller shape and no 100 Continue', async (ep) => {
    const { first, client } = await expectFirst(ep, { key: false });
    client.destroy();
    expectError(first, 401, ep.family);
  });

  it.each(API)('$name with a wrong key, or a foreign Host: the refusal comes first', async (ep) => {
    const wrong = await expectFirst(ep, { key: false, lines: [ep.family === 'openai' ? 'authorization: Bearer nope' : 'x-api-key: nope'] });
    wrong.client.destroy();
    expectError(wrong.first, 401, ep.family);
    const foreign = await expectFirst(ep, { host: 'evil.example' });
    foreign.client.destroy();
    expectError(foreign.first, 403, ep.family);
  });

  it.each(API)('$name with the key: 100 Continue, then the body is read and answered', async (ep) => {
    const { first, client, body } = await expectFirst(ep, {});
    try {
      expect(first.status).toBe(100);
      await client.write(body);
      expect((await client.response()).status).toBe(200);
    } finally {
      client.destroy();
    }
  });
});

describe('key headers', () => {
  it.each([
    { name: 'two Authorization headers (the same key)', ep: CHAT, lines: [`authorization: Bearer ${GATEWAY_KEY}`] },
    { name: 'two Authorization headers (another key second)', ep: RESPONSES, lines: ['Authorization: Bearer other'] },
    { name: 'two x-api-key headers', ep: MESSAGES, lines: [`X-Api-Key: ${GATEWAY_KEY}`] },
    { name: 'two Authorization headers beside x-api-key', ep: MESSAGES, lines: [`authorization: Bearer ${GATEWAY_KEY}`, `authorization: Bearer ${GATEWAY_KEY}`] },
  ])('$name: 400 in the caller shape', async ({ ep, lines }) => {
    expect(errorOf(expectError(await send(ep, { lines }), 400, ep.family)).message).toMatch(/more than one/);
  });

  it('Authorization and x-api-key once each are served (x-api-key is read)', async () => {
    expect((await send(MESSAGES, { lines: ['authorization: Bearer other'] })).status).toBe(200);
  });

  // Latin-1 0xA0 is U+00A0 (no-break space) once Node has decoded the header; 0x85 is U+0085.
  it.each([
    { ep: CHAT, line: `authorization: Bearer ${GATEWAY_KEY}\xa0` },
    { ep: CHAT, line: `authorization: Bearer \xa0${GATEWAY_KEY}` },
    { ep: RESPONSES, line: `authorization: Bearer\xa0${GATEWAY_KEY}` },
    { ep: RESPONSES, line: `authorization: Bearer ${GATEWAY_KEY}\x85` },
    { ep: MESSAGES, line: `x-api-key: ${GATEWAY_KEY}\xa0` },
    { ep: MESSAGES, line: `x-api-key: \xa0${GATEWAY_KEY}` },
  ])('a key padded with non-ASCII space is another key: 401 ($line)', async ({ ep, line }) => {
    expectError(await send(ep, { key: false, lines: [line] }), 401, ep.family);
  });

  it.each([`authorization: Bearer ${GATEWAY_KEY} \t`, `authorization: Bearer \t ${GATEWAY_KEY}`])('space and tab around the key are trimmed: %j', async (line) => {
    expect((await send(CHAT, { key: false, lines: [line] })).status).toBe(200);
  });
});

describe('wrong keys are throttled per client address', () => {
  const LIMIT = 5;
  let throttled: TestGateway;
  beforeAll(async () => {
    throttled = await startGateway(robustConfig(upstream.url, { server: { authFailuresPerMinute: LIMIT } }));
  });
  afterAll(async () => {
    vi.useRealTimers();
    await throttled.close();
  });

  const wrong = (ep: EndpointCase) => send(ep, { key: false, lines: [ep.family === 'openai' ? 'authorization: Bearer guess' : 'x-api-key: guess'] }, throttled);

  it('after authFailuresPerMinute failures: 429 with retry-after in each caller shape, whatever the key; connections that proved their key keep working; all is back after the minute', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    // A keep-alive connection that authenticated before the throttle.
    const kept = await RawClient.open(throttled.url);
    const body = JSON.stringify(CHAT.body('echo'));
    const keptRequest = () => kept.write(head(CHAT, body).replace('connection: close', 'connection: keep-alive') + body);
    await keptRequest();
    expect((await kept.response()).status).toBe(200);

    for (let i = 0; i < LIMIT - 1; i++) expectError(await wrong(CHAT), 401, 'openai');
    expectError(await send(MESSAGES, { key: false }, throttled), 401, 'anthropic'); // a missing key counts too
    for (const ep of API) {
      const res = await wrong(ep);
      expect(errorOf(expectError(res, 429, ep.family)).message).toMatch(/missing or wrong API key/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(50);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
    // The right key on a new connection gets the same answer as a guess: a throttled guesser learns nothing.
    const right = await send(CHAT, {}, throttled);
    expectError(right, 429, 'openai');
    expect(errorOf(JSON.parse(right.text) as Record<string, unknown>).message).toBe(errorOf(JSON.parse((await wrong(CHAT)).text) as Record<string, unknown>).message);
    // The connection that proved the key before is still served.
    await keptRequest();
    expect((await kept.response()).status).toBe(200);
    kept.destroy();
    // Another gateway (another table) is untouched.
    await expectStillServing();

    vi.setSystemTime(Date.now() + 61_000);
    await expectStillServing(throttled);
    expectError(await wrong(CHAT), 401, 'openai');
  });
});

describe('the inspector page', () => {
  it('is guarded the same way, and its same-origin sign-in and API keep working', async () => {
    const inspector = createInspector({ capacity: 10 });
    const withPage = await startGateway(robustConfig(upstream.url), { observers: [inspector.observer], mounts: [inspector.mount] });
    try {
      const link = inspector.link(withPage.url);
      const path = new URL(link).pathname + new URL(link).search;
      const client = await RawClient.open(withPage.url);
      await client.write(`GET ${path} HTTP/1.1\r\nhost: evil.example\r\nconnection: close\r\n\r\n`);
      const refused = await client.response();
      client.destroy();
      expect(refused.status).toBe(403);
      expect(refused.text).toMatch(/Host 'evil.example' is not accepted/);
      // The link was not spent by the refused request; the page's own origin passes.
      const signIn = await call(link, { method: 'GET' });
      expect(signIn.status).toBe(303);
      const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
      const origin = withPage.url;
      const list = await call(`${withPage.url}/_inspector/api/exchanges`, { method: 'GET', headers: { cookie, origin } });
      expect(list.status).toBe(200);
      const foreign = await call(`${withPage.url}/_inspector/api/exchanges`, { method: 'GET', headers: { cookie, origin: 'http://evil.example' } });
      expect(foreign.status).toBe(403);
    } finally {
      inspector.close();
      await withPage.close();
    }
  });
});

describe('requests without these faults', () => {
  it('plain SDK clients, with no Origin, through the loopback address are served', async () => {
    const res = await call(`${gw.url}/v1/models`, { method: 'GET', headers: { authorization: `Bearer ${GATEWAY_KEY}` } });
    expect(res.status).toBe(200);
  });
});
