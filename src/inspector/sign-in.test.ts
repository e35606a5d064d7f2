/**
 * The ways into the inspector besides the printed link, on a real gateway: the sign-in form refuses a
 * post that did not come from the gateway's own page (login CSRF), counts wrong keys per client address,
 * and the link key gives the local user a fresh one-time link.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../../test/helpers/fake-upstream.js';
import { call } from '../../test/helpers/http.js';
import { GATEWAY_KEY, startGateway, testConfig, type TestGateway } from '../../test/helpers/start-gateway.js';
import { inspectorWiring } from '../cli/commands/serve.js';
import { createInspector, type Inspector } from './inspector.js';
import { LINK_ANSWER, linkKeyMatcher, newLinkKey } from './link-key.js';
import { isLoopback } from '../server/host-guard.js';
import { mayInspect, WRONG_KEYS_PER_MINUTE } from './sign-in.js';

const INSPECT_KEY = 'mgw-inspector-sign-in-key';
const LINK_KEY = newLinkKey();

let upstream: FakeUpstream;
let gw: TestGateway;
let inspector: Inspector;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  let served: () => TestGateway | undefined = () => undefined;
  inspector = createInspector({
    linkKey: LINK_KEY,
    signIn: (key) => {
      const g = served();
      return g !== undefined && mayInspect(g.gateway.state.config, key);
    },
  });
  gw = await startGateway(
    testConfig(upstream.url, {
      server: { allowedHosts: ['gateway.example'] },
      keyGroups: { dev: { keys: [GATEWAY_KEY], models: ['*'] }, watchers: { keys: [INSPECT_KEY], models: ['echo'], inspect: true } },
    }),
    inspectorWiring(inspector),
  );
  served = () => gw;
});
afterAll(async () => {
  inspector.close();
  await gw.close();
  await upstream.close();
});

/** A sign-in post from `localAddress` (any of 127/8 reaches the gateway), with the headers given. */
function post(path: string, body: string, headers: Record<string, string>, localAddress = '127.0.0.1'): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const url = new URL(path, gw.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', localAddress, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const ownOrigin = () => new URL(gw.url).origin;

describe('the sign-in form', () => {
  it.each([
    ['no Origin (a post that did not come from a browser page)', {}],
    ['Origin: null (a sandboxed frame, a file)', { origin: 'null' }],
    ['another site', { origin: 'http://evil.example' }],
    ['a name in allowedHosts, while the request went to the loopback address', { origin: 'http://gateway.example' }],
    ['the same name on another port', { origin: 'http://127.0.0.1:1' }],
    ['the right origin with a path', { origin: 'http://HOST/' }],
  ])('refuses a post with %s, even with a key that may inspect, and opens no session', async (_name, headers: Record<string, string>) => {
    const host = new URL(gw.url).host;
    const withHost = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('HOST', host)]));
    const res = await post('/_inspector/sign-in', `key=${INSPECT_KEY}`, withHost);
    expect(res.status).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it("signs in with the gateway's own origin and a key that may inspect", async () => {
    const res = await post('/_inspector/sign-in', `key=${INSPECT_KEY}`, { origin: ownOrigin() });
    expect(res.status).toBe(303);
    const cookie = String(res.headers['set-cookie']).split(';')[0]!;
    expect((await call(`${gw.url}/_inspector/api/exchanges`, { method: 'GET', headers: { cookie } })).status).toBe(200);
  });

  it('counts wrong keys per client address: one address past the limit waits, another still signs in', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < WRONG_KEYS_PER_MINUTE + 2; i++) statuses.push((await post('/_inspector/sign-in', 'key=wrong', { origin: ownOrigin() }, '127.0.0.3')).status);
    expect(statuses.slice(0, WRONG_KEYS_PER_MINUTE)).toEqual(Array(WRONG_KEYS_PER_MINUTE).fill(401));
    expect(statuses.slice(WRONG_KEYS_PER_MINUTE)).toEqual([429, 429]);
    // The throttled address waits even with the right key; another address is not locked out by it.
    expect((await post('/_inspector/sign-in', `key=${INSPECT_KEY}`, { origin: ownOrigin() }, '127.0.0.3')).status).toBe(429);
    expect((await post('/_inspector/sign-in', `key=${INSPECT_KEY}`, { origin: ownOrigin() }, '127.0.0.4')).status).toBe(303);
    expect((await post('/_inspector/sign-in', 'key=wrong', { origin: ownOrigin() }, '127.0.0.4')).status).toBe(401);
  });
});

describe('a fresh link with the link key', () => {
  it('gives the holder of the link key a one-time link that signs in once', async () => {
    const res = await post('/_inspector/link', '', { authorization: `Bearer ${LINK_KEY}` });
    expect(res.status).toBe(200);
    const { path } = JSON.parse(res.text) as { path: string };
    expect(path).toMatch(LINK_ANSWER);
    const first = await call(`${gw.url}${path}`, { method: 'GET' });
    expect(first.status).toBe(303);
    expect(String(first.headers['set-cookie'])).toMatch(/^mgw_inspector_\d+=/);
    expect((await call(`${gw.url}${path}`, { method: 'GET' })).status).toBe(401);
  });

  it.each([
    ['no key', {}],
    ['a wrong key', { authorization: `Bearer ${newLinkKey()}` }],
    ['a gateway key that may inspect', { authorization: `Bearer ${INSPECT_KEY}` }],
    ['the link key, not as a bearer token', { authorization: LINK_KEY }],
  ])('refuses %s', async (_name, headers: Record<string, string>) => {
    const res = await post('/_inspector/link', '', headers);
    expect(res.status).toBe(403);
    expect(res.text).not.toContain('token=');
  });

  it('answers only a POST, and is not there on an inspector given no link key', async () => {
    expect((await call(`${gw.url}/_inspector/link`, { method: 'GET', headers: { authorization: `Bearer ${LINK_KEY}` } })).status).toBe(405);
    const plain = createInspector({ capacity: 5 });
    const other = await startGateway(testConfig(upstream.url), inspectorWiring(plain));
    try {
      const res = await call(`${other.url}/_inspector/link`, { headers: { authorization: `Bearer ${LINK_KEY}` } });
      expect(res.status).toBe(401);
      expect(res.text).not.toContain('token=');
    } finally {
      plain.close();
      await other.close();
    }
  });

  it.each([
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['fe80::1', false],
    ['128.0.0.1', false],
    [undefined, false],
  ])('takes %s for loopback: %s', (address, expected) => {
    expect(isLoopback(address ?? '')).toBe(expected);
  });

  it('matches the key only as a bearer token, whole', () => {
    const matches = linkKeyMatcher(LINK_KEY);
    expect(matches(`Bearer ${LINK_KEY}`)).toBe(true);
    expect(matches(`Bearer ${LINK_KEY}x`)).toBe(false);
    expect(matches(`bearer ${LINK_KEY}`)).toBe(false);
    expect(matches(undefined)).toBe(false);
  });
});
