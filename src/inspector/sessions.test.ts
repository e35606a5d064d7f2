/**
 * Inspector sign-ins end, over HTTP on a real gateway with a clock the test moves: a session
 * unused for the idle time, any session at the end of its lifetime (its open event stream
 * included), and an unopened link after a session lifetime. The gateway keeps serving throughout.
 */
import { request, type IncomingMessage } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../../test/helpers/fake-upstream.js';
import { call } from '../../test/helpers/http.js';
import { GATEWAY_KEY, startGateway, testConfig, type TestGateway } from '../../test/helpers/start-gateway.js';
import { createInspector, type Inspector } from './inspector.js';

const HOUR = 60 * 60 * 1000;
const IDLE = 2 * HOUR;
const MAX = 10 * HOUR;

let upstream: FakeUpstream;
let gw: TestGateway;
let inspector: Inspector;
let t = 0;
const advance = (ms: number) => (t += ms);

beforeAll(async () => {
  upstream = await startFakeUpstream();
  inspector = createInspector({ sessionIdleMs: IDLE, sessionMaxMs: MAX, heartbeatMs: 50, now: () => t });
  gw = await startGateway(testConfig(upstream.url), { captureWhile: () => inspector.capturing, observers: [inspector.observer], mounts: [inspector.mount] });
});
afterAll(async () => {
  inspector.close();
  await gw.close();
  await upstream.close();
});
afterEach(async () => {
  // The gateway still serves its clients.
  const res = await call(`${gw.url}/v1/chat/completions`, {
    headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(res.status).toBe(200);
});

async function signIn(link = inspector.link(gw.url)): Promise<string> {
  const res = await call(link, { method: 'GET' });
  expect(res.status).toBe(303);
  return String(res.headers['set-cookie']).split(';')[0]!;
}

const list = async (cookie: string) => (await call(`${gw.url}/_inspector/api/exchanges`, { method: 'GET', headers: { cookie } })).status;

/** Opens the event stream; `ended` resolves when the server ends it, `pings` counts the heartbeats received. */
function openStream(cookie: string): Promise<{ status: number; ended: Promise<void>; pings: () => number }> {
  return new Promise((resolve, reject) => {
    const req = request(`${gw.url}/_inspector/api/events`, { headers: { cookie } }, (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      const pings = () => text.split(': ping\n\n').length - 1;
      resolve({ status: res.statusCode ?? 0, ended: new Promise((r) => res.once('close', () => r())), pings });
    });
    req.once('error', reject);
    req.end();
  });
}

describe('inspector sessions', () => {
  it.each([
    // [what, steps between uses, answer to the last use]
    ['used now and then within the idle time', [HOUR, HOUR, HOUR, HOUR], 200],
    ['left unused for the idle time', [IDLE], 401],
    ['left unused for a day', [24 * HOUR], 401],
    ['used within the idle time, but past its lifetime', [1.9 * HOUR, 1.9 * HOUR, 1.9 * HOUR, 1.9 * HOUR, 1.9 * HOUR, 1.9 * HOUR], 401],
  ] as const)('a session %s', async (_what, steps, last) => {
    const cookie = await signIn();
    expect(await list(cookie)).toBe(200);
    const answers: number[] = [];
    for (const step of steps) {
      advance(step);
      answers.push(await list(cookie));
    }
    expect(answers).toEqual([...Array<number>(steps.length - 1).fill(200), last]);
    if (last === 401) {
      // Ended for good, and every path says so.
      const page = await call(`${gw.url}/_inspector/`, { method: 'GET', headers: { cookie } });
      expect(page.status).toBe(401);
      expect(page.text).toMatch(/model-gateway status --link prints a new one/);
      expect((await openStream(cookie)).status).toBe(401);
    }
  });

  it('an open page keeps its session while it is open; its stream is ended at the end of the lifetime', async () => {
    const cookie = await signIn();
    const stream = await openStream(cookie);
    expect(stream.status).toBe(200);
    let ended = false;
    void stream.ended.then(() => (ended = true));
    // Three idle times pass with the page open: each heartbeat counts as use. The second heartbeat
    // received after a step was sent after it (the first may have been on its way already).
    for (let i = 0; i < 6; i++) {
      advance(IDLE / 2);
      const seen = stream.pings();
      await expect.poll(stream.pings).toBeGreaterThanOrEqual(seen + 2);
    }
    expect(ended).toBe(false);
    expect(await list(cookie)).toBe(200);
    advance(MAX);
    await stream.ended;
    expect(await list(cookie)).toBe(401);
  });

  it.each([
    ['an hour', HOUR, 303],
    ['past the idle time', IDLE * 3, 303],
    ['a lifetime', MAX, 401],
  ])('the start link opened %s after it was printed answers %i', async (_what, after, status) => {
    const link = inspector.link(gw.url);
    advance(after);
    const res = await call(link, { method: 'GET' });
    expect(res.status).toBe(status);
    if (status === 303) expect(await list(String(res.headers['set-cookie']).split(';')[0]!)).toBe(200);
  });
});
