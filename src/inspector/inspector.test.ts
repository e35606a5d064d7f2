/**
 * The inspector over HTTP on a real gateway: the token and cookie flow, what answers 401,
 * the page's security headers, pushed rows, the detail API (secrets redacted), and a
 * copied curl command run against the gateway.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../../test/helpers/fake-upstream.js';
import { call } from '../../test/helpers/http.js';
import { GATEWAY_KEY, PROVIDER_ANTHROPIC_KEY, PROVIDER_OPENAI_KEY, startGateway, testConfig, waitForLines, type StartOptions, type TestGateway } from '../../test/helpers/start-gateway.js';
import { createInspector, type Inspector } from './inspector.js';
import { inspectorWiring } from '../cli/commands/serve.js';
import { curlCommand } from './common/curl.js';
import type { ExchangeDetail, ExchangeList, PushEvent } from './common/types.js';

let upstream: FakeUpstream;
let gw: TestGateway;
let inspector: Inspector;

/** A page open throughout (the inspector keeps only what starts while one is). */
let page: EventStream;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  inspector = createInspector({ capacity: 50 });
  gw = await startGateway(testConfig(upstream.url), { captureWhile: () => inspector.capturing, observers: [inspector.observer], mounts: [inspector.mount] });
  page = await openEvents(await signIn());
});
afterAll(async () => {
  page.close();
  inspector.close();
  await gw.close();
  await upstream.close();
});

const get = (path: string, cookie?: string) => call(`${gw.url}${path}`, { method: 'GET', headers: cookie ? { cookie } : {} });

/** Opens a one-time link; the cookie it sets, as a request header. */
async function signIn(): Promise<string> {
  const res = await call(inspector.link(gw.url), { method: 'GET' });
  expect(res.status).toBe(303);
  const setCookie = String(res.headers['set-cookie']);
  return setCookie.split(';')[0]!;
}

const chat = (content: string, extra: Record<string, string> = {}) =>
  call(`${gw.url}/v1/chat/completions`, {
    headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json', 'user-agent': 'OpenAI/JS 7.57.0', ...extra },
    body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content }] }),
  });

describe('signing in', () => {
  it('answers 401 everywhere without the cookie, with a wrong one, and to a made-up token', async () => {
    for (const path of ['/_inspector/', '/_inspector', '/_inspector/inspector.js', '/_inspector/inspector.css', '/_inspector/api/exchanges', '/_inspector/api/exchanges/x', '/_inspector/api/events']) {
      expect((await get(path)).status, path).toBe(401);
      expect((await get(path, 'mgw_inspector_1=forged')).status, path).toBe(401);
    }
    expect((await get('/_inspector/?token=made-up')).status).toBe(401);
  });

  it('turns the one-time link into an HTTP-only, same-site cookie for /_inspector, and the link works only once', async () => {
    const link = inspector.link(gw.url);
    const first = await call(link, { method: 'GET' });
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/_inspector/');
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toMatch(/^mgw_inspector_\d+=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/_inspector$/);
    expect(cookie).not.toContain(new URL(link).searchParams.get('token')!);

    expect((await call(link, { method: 'GET' })).status).toBe(401);
    const session = cookie.split(';')[0]!;
    // With the cookie, the used link just leads to the page, setting nothing.
    const again = await call(link, { method: 'GET', headers: { cookie: session } });
    expect(again.status).toBe(303);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect((await get('/_inspector/api/exchanges', session)).status).toBe(200);
  });

  it('serves the page with a strict CSP, no inline script or style, and a separate script', async () => {
    const cookie = await signIn();
    const page = await get('/_inspector/', cookie);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'; style-src 'self'/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toMatch(/<script defer src="inspector.js"><\/script>/);
    expect(page.text).not.toMatch(/<script>|<style|style=/);
    const js = await get('/_inspector/inspector.js', cookie);
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/text\/javascript/);
    expect(js.text.length).toBeGreaterThan(1000);
    expect((await get('/_inspector/inspector.css', cookie)).headers['content-type']).toMatch(/text\/css/);
    expect((await get('/_inspector', cookie)).status).toBe(308);
    expect((await call(`${gw.url}/_inspector/api/exchanges`, { method: 'POST', headers: { cookie } })).status).toBe(405);
  });
});

describe('the data', () => {
  it('lists exchanges newest first and serves one in full with secrets redacted; its own requests are not logged', async () => {
    const cookie = await signIn();
    const before = gw.lines().length;
    expect((await chat('first')).status).toBe(200);
    expect((await chat('second')).status).toBe(200);
    await waitForLines(gw, before + 2);

    const list = (await get('/_inspector/api/exchanges', cookie)).json as ExchangeList;
    expect(list).toMatchObject({ mode: 'live', capacity: 50, evicted: 0 });
    const [second, first] = list.exchanges;
    expect(second).toMatchObject({ model: 'gpt-test', provider: 'openai', upstreamModel: 'gpt-upstream', status: 200, client: { kind: 'openai-sdk' }, translated: false });
    expect(first!.time).toBeLessThanOrEqual(second!.time);

    const detail = (await get(`/_inspector/api/exchanges/${second!.id}`, cookie)).json as ExchangeDetail;
    expect(detail.exchange.request?.body.json).toMatchObject({ messages: [{ content: 'second' }] });
    expect(detail.exchange.request?.headers.authorization).toBe('[redacted]');
    expect(detail.exchange.attempts?.[0]?.body.json).toMatchObject({ model: 'gpt-upstream' });

    const everything = JSON.stringify(list) + JSON.stringify(detail);
    for (const secret of [GATEWAY_KEY, PROVIDER_OPENAI_KEY, PROVIDER_ANTHROPIC_KEY]) expect(everything).not.toContain(secret);
    expect(gw.lines().join('\n')).not.toContain('/_inspector');
    for (const id of ['req_nope', '%E0%A4%A', '%', 'req%ZZ']) expect((await get(`/_inspector/api/exchanges/${id}`, cookie)).status).toBe(404);
  });

  it('pushes each exchange as it starts and as it ends to a connected page', async () => {
    const cookie = await signIn();
    const events = await openEvents(cookie);
    try {
      await events.next((e) => e.type === 'hello');
      const res = chat('pushed please');
      const started = await events.next((e) => e.type === 'exchange' && e.summary.pending === true);
      const ended = await events.next((e) => e.type === 'exchange' && !e.summary.pending);
      expect((await res).status).toBe(200);
      expect(started.type === 'exchange' && ended.type === 'exchange' && started.summary.id === ended.summary.id).toBe(true);
      expect(ended).toMatchObject({ summary: { status: 200, model: 'gpt-test' }, use: { evicted: 0 } });
    } finally {
      events.close();
    }
  });

  it.skipIf(!existsSync('/usr/bin/curl') || !existsSync('/bin/sh'))('gives a curl command that repeats the request with the key from the environment', async () => {
    const cookie = await signIn();
    expect((await chat('via curl')).status).toBe(200);
    const list = (await get('/_inspector/api/exchanges', cookie)).json as ExchangeList;
    const { exchange: x } = (await get(`/_inspector/api/exchanges/${list.exchanges[0]!.id}`, cookie)).json as ExchangeDetail;
    const command = curlCommand({ baseUrl: gw.url, method: x.method, path: x.path, headers: x.request!.headers, body: x.request!.body });
    expect(command).not.toContain(GATEWAY_KEY);
    // Not execFileSync: the gateway curl talks to runs in this process and must keep serving.
    const { stdout } = await promisify(execFile)('/bin/sh', ['-c', command], { env: { PATH: process.env.PATH ?? '', MODEL_GATEWAY_KEY: GATEWAY_KEY }, encoding: 'utf8' });
    expect(JSON.parse(stdout)).toMatchObject({ object: 'chat.completion' });
    expect(upstream.last().json).toMatchObject({ messages: [{ content: 'via curl' }] });
  });
});

/** A gateway of its own, wired to `watcher` as serve wires it, and the calls a test makes to it. */
async function inspectedGateway(watcher: Inspector, options: StartOptions = {}) {
  const own = await startGateway(testConfig(upstream.url), { ...options, ...inspectorWiring(watcher) });
  return {
    gw: own,
    chat: (content: string, extra: Record<string, string> = {}) =>
      call(`${own.url}/v1/chat/completions`, {
        headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json', ...extra },
        body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content }] }),
      }),
    /** Opens a one-time link; the cookie it sets, as a request header. */
    signIn: async () => String((await call(watcher.link(own.url), { method: 'GET' })).headers['set-cookie']).split(';')[0]!,
    rows: async (cookie: string) => ((await call(`${own.url}/_inspector/api/exchanges`, { method: 'GET', headers: { cookie } })).json as ExchangeList).exchanges,
    detail: async (cookie: string, id: string) => (await call(`${own.url}/_inspector/api/exchanges/${id}`, { method: 'GET', headers: { cookie } })).json as ExchangeDetail,
  };
}
type InspectedGateway = Awaited<ReturnType<typeof inspectedGateway>>;

describe('history (inspector.history, the default): kept while nobody watches', () => {
  let kept: Inspector;
  let g: InspectedGateway;
  beforeAll(async () => {
    kept = createInspector({ capacity: 3 });
    g = await inspectedGateway(kept);
  });
  afterAll(async () => {
    kept.close();
    await g.gw.close();
  });

  it('keeps the last exchanges whole with no page open, so a page opened later reads them', async () => {
    expect(kept.capturing).toBe(true);
    for (const content of ['one', 'two', 'three', 'four']) expect((await g.chat(content)).status).toBe(200);
    const cookie = await g.signIn();
    const rows = await g.rows(cookie);
    expect(rows.map((r) => r.status)).toEqual([200, 200, 200]);
    const bodies: unknown[] = [];
    for (const r of rows) {
      const d = await g.detail(cookie, r.id);
      bodies.push(d.exchange.request?.body.json);
      expect(d.exchange.attempts?.[0]?.body.json).toMatchObject({ model: 'gpt-upstream' });
      expect(d.exchange.response?.body.json).toMatchObject({ object: 'chat.completion' });
    }
    expect(bodies).toEqual(['four', 'three', 'two'].map((content) => ({ model: 'gpt-test', messages: [{ role: 'user', content }] })));
  });
});

describe.each([
  ['capturing only what the rate allows', {}],
  // `--verbose` captures every request for the terminal: the rate still decides which the inspector keeps whole.
  ['with every request captured for the log', { verbose: true }],
] as const)('history past inspector.bodiesPerSecond, %s: rows for every request, bodies for as many as the rate allows', (_, options) => {
  let rated: Inspector;
  let g: InspectedGateway;
  beforeAll(async () => {
    rated = createInspector({ capacity: 10, bodiesPerSecond: 1, bodiesBurst: 1 });
    g = await inspectedGateway(rated, options);
  });
  afterAll(async () => {
    rated.close();
    await g.gw.close();
  });

  it('keeps one of a burst of three whole and the other two as rows, and every one whole while a page is open', async () => {
    const statuses = await Promise.all(['a', 'b', 'c'].map(async (content) => (await g.chat(content)).status));
    expect(statuses).toEqual([200, 200, 200]);
    const cookie = await g.signIn();
    const burst = await g.rows(cookie);
    expect(burst.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(burst.filter((r) => r.bodiesSkipped).length).toBe(2);
    const whole = burst.find((r) => !r.bodiesSkipped)!;
    expect((await g.detail(cookie, whole.id)).exchange.request?.body.json).toMatchObject({ model: 'gpt-test' });
    for (const row of burst.filter((r) => r.bodiesSkipped)) {
      const d = await g.detail(cookie, row.id);
      expect(d.exchange.request).toBeUndefined();
      expect(d.summary).toMatchObject({ model: 'gpt-test', status: 200, bodiesSkipped: true });
    }

    // The bucket is empty; with a page open every exchange is kept whole all the same.
    const events = await openEvents(cookie, g.gw.url);
    await events.next((e) => e.type === 'hello');
    for (const content of ['d', 'e', 'f']) expect((await g.chat(content)).status).toBe(200);
    const watchedRows = (await g.rows(cookie)).slice(0, 3);
    expect(watchedRows.map((r) => r.bodiesSkipped ?? false)).toEqual([false, false, false]);
    for (const row of watchedRows) expect((await g.detail(cookie, row.id)).exchange.request?.body.json).toMatchObject({ model: 'gpt-test' });
    events.close();
  });
});

describe('history at a low inspector.bodiesPerSecond, its burst left as it is', () => {
  let rated: Inspector;
  let g: InspectedGateway;
  beforeAll(async () => {
    // One every 20 seconds: nothing refills while the burst passes, however slow the machine.
    rated = createInspector({ capacity: 30, bodiesPerSecond: 0.05 });
    g = await inspectedGateway(rated);
  });
  afterAll(async () => {
    rated.close();
    await g.gw.close();
  });

  it('keeps a burst of 20 whole however low the rate, and the 21st as its row: subagents starting together are all kept', async () => {
    const statuses = await Promise.all(Array.from({ length: 21 }, async (_, i) => (await g.chat(`q${i}`)).status));
    expect(statuses.every((s) => s === 200)).toBe(true);
    const rows = await g.rows(await g.signIn());
    expect(rows).toHaveLength(21);
    expect(rows.filter((r) => r.bodiesSkipped).length).toBe(1);
  });
});

describe('without history: capturing only while someone watches', () => {
  let watched: Inspector;
  let g: InspectedGateway;
  beforeAll(async () => {
    watched = createInspector({ watchGraceMs: 2000, history: false });
    g = await inspectedGateway(watched);
  });
  afterAll(async () => {
    watched.close();
    await g.gw.close();
  });

  const chat2 = (content: string) => g.chat(content, { 'user-agent': 'claude-cli/2.1.330 (external, cli)', 'x-claude-code-session-id': 'sess-1' });
  const until = async (done: () => boolean, ms: number) => {
    for (const end = Date.now() + ms; !done(); ) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  it('keeps nothing while no page is open, each exchange whole while one is, and nothing again a grace period after it goes', async () => {
    const cookie = await g.signIn();
    expect(watched.capturing).toBe(false);

    expect((await chat2('nobody looks')).status).toBe(200);
    expect(upstream.last().json).toMatchObject({ messages: [{ content: 'nobody looks' }] });
    expect(await g.rows(cookie)).toEqual([]);

    const events = await openEvents(cookie, g.gw.url);
    await events.next((e) => e.type === 'hello');
    expect(watched.capturing).toBe(true);
    expect((await chat2('someone looks')).status).toBe(200);
    const rows = await g.rows(cookie);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 200, sessionId: 'sess-1', client: { kind: 'claude-code' } });
    const seen = await g.detail(cookie, rows[0]!.id);
    expect(seen.exchange.request?.body.json).toMatchObject({ messages: [{ content: 'someone looks' }] });
    expect(seen.exchange.attempts?.[0]?.body.json).toMatchObject({ model: 'gpt-upstream' });

    // The page goes (a reload reconnects within the grace period); after it, nothing is kept again.
    events.close();
    await until(() => !watched.capturing, 10_000);
    expect((await chat2('gone again')).status).toBe(200);
    expect((await g.rows(cookie)).map((r) => r.id)).toEqual([rows[0]!.id]);
  });
});

interface EventStream {
  next(match: (e: PushEvent) => boolean, timeoutMs?: number): Promise<PushEvent>;
  close(): void;
}

/** A minimal SSE reader: collects events, and waits for the first not yet taken that matches. */
function openEvents(cookie: string, base = gw.url): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}/_inspector/api/events`, { headers: { cookie } }, (res: IncomingMessage) => {
      if (res.statusCode !== 200) return reject(new Error(`events: HTTP ${res.statusCode}`));
      const seen: PushEvent[] = [];
      let buffer = '';
      let wake = () => {};
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = frame.split('\n').find((l) => l.startsWith('data: '));
          if (data) seen.push(JSON.parse(data.slice(6)) as PushEvent);
        }
        wake();
      });
      resolve({
        async next(match, timeoutMs = 5000) {
          const until = Date.now() + timeoutMs;
          for (;;) {
            const i = seen.findIndex(match);
            if (i >= 0) return seen.splice(0, i + 1)[i]!;
            if (Date.now() > until) throw new Error(`no matching event; got ${JSON.stringify(seen)}`);
            await new Promise<void>((r) => {
              wake = r;
              setTimeout(r, 50);
            });
          }
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

// Last: these requests are logged as the gateway's own, which the tests above check never happens to the inspector's.
describe('the mount', () => {
  it('owns /_inspector and what is under it, not paths that merely start with its name', async () => {
    // The gateway answers these itself: an unknown path gets its JSON 404, not the inspector's 401.
    for (const path of ['/_inspectorx', '/_inspector.js', '/_inspectors/api']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(String(res.headers['content-type']), path).toContain('application/json');
    }
  });
});
