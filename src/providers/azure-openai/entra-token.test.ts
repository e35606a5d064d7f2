/**
 * Microsoft Entra ID's client-credentials flow against a fake token endpoint on loopback that
 * behaves as Entra's does (test/helpers/fake-azure.ts): what is posted, how long a token is kept,
 * when it is renewed (the clock is the test's), and how the endpoint's refusals reach the caller.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { COGNITIVE_SERVICES_SCOPE, ENTRA_APP, type FakeEntra, fakeEntra } from '../../../test/helpers/fake-azure.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../../../test/helpers/fake-upstream.js';
import { GatewayError } from '../../errors.js';
import { isRetryable } from '../../pipeline/retry-policy.js';
import { type EntraCredential, entraTokenSource, type TokenSource, tokenUrl } from './entra-token.js';

let upstream: FakeUpstream;
let entra: FakeEntra;
let clock: number;
const opened: TokenSource[] = [];

const credential = (over: Partial<EntraCredential> = {}): EntraCredential => ({
  ...ENTRA_APP,
  authorityHost: upstream.url,
  scope: COGNITIVE_SERVICES_SCOPE,
  ...over,
});

function source(over: Partial<EntraCredential> = {}): TokenSource {
  const s = entraTokenSource(credential(over), { providerId: 'az', connectMs: 1000, timeoutMs: 2000, now: () => clock });
  opened.push(s);
  return s;
}

async function failure(p: Promise<unknown>): Promise<GatewayError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GatewayError);
  return err as GatewayError;
}

beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(async () => {
  await upstream.close();
});
beforeEach(() => {
  clock = 1_000_000;
  entra = fakeEntra();
  upstream.reset();
  upstream.always(entra.behaviour);
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

describe('the token URL', () => {
  it.each([
    ['https://login.microsoftonline.com', 'contoso.onmicrosoft.com', 'https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token'],
    ['https://login.microsoftonline.us/', ENTRA_APP.tenantId, `https://login.microsoftonline.us/${ENTRA_APP.tenantId}/oauth2/v2.0/token`],
    // A tenant can add no path segment or query of its own.
    ['https://login.microsoftonline.com', 'a/../b?x', 'https://login.microsoftonline.com/a%2F..%2Fb%3Fx/oauth2/v2.0/token'],
  ])('%s, tenant %s: %s', (authorityHost, tenantId, url) => {
    expect(tokenUrl({ authorityHost, tenantId }).href).toBe(url);
  });
});

describe('the client-credentials flow', () => {
  it('posts the grant as a form to the tenant\'s endpoint and returns the token issued', async () => {
    const token = await source().token();
    expect(entra.issued).toEqual([token]);
    const got = upstream.last();
    expect(got.url).toBe(`/${ENTRA_APP.tenantId}/oauth2/v2.0/token`);
    expect(got.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(got.body.toString('utf8')))).toEqual({
      grant_type: 'client_credentials',
      client_id: ENTRA_APP.clientId,
      client_secret: ENTRA_APP.clientSecret,
      scope: COGNITIVE_SERVICES_SCOPE,
    });
  });

  it('keeps the token until five minutes before it expires, then renews it', async () => {
    const tokens = source();
    const first = await tokens.token();
    clock += 3599_000 - 5 * 60_000 - 1;
    expect(await tokens.token()).toBe(first);
    expect(entra.issued).toHaveLength(1);
    clock += 1;
    const second = await tokens.token();
    expect(second).not.toBe(first);
    expect(entra.issued).toEqual([first, second]);
  });

  it('renews a short-lived token at half its life', async () => {
    entra.expiresIn = 60;
    const tokens = source();
    const first = await tokens.token();
    clock += 29_999;
    expect(await tokens.token()).toBe(first);
    clock += 1;
    expect(await tokens.token()).not.toBe(first);
  });

  it('takes expires_in as a string too (the v1.0 endpoint\'s form)', async () => {
    upstream.once((_req, res) => sendJson(res, 200, { token_type: 'Bearer', expires_in: '3599', access_token: 'tok-string-expiry' }));
    const tokens = source();
    expect(await tokens.token()).toBe('tok-string-expiry');
    clock += 60_000;
    expect(await tokens.token()).toBe('tok-string-expiry');
    expect(upstream.received).toHaveLength(1);
  });

  it('calls waiting at once share one request', async () => {
    const tokens = source();
    const all = await Promise.all([tokens.token(), tokens.token(), tokens.token()]);
    expect(new Set(all).size).toBe(1);
    expect(upstream.received).toHaveLength(1);
  });

  it('forget drops the token held, so the next call asks for another', async () => {
    const tokens = source();
    const first = await tokens.token();
    tokens.forget();
    expect(await tokens.token()).not.toBe(first);
    expect(entra.issued).toHaveLength(2);
  });

  it('while the endpoint fails, a token that has not expired yet still serves; an expired one does not', async () => {
    const tokens = source();
    const first = await tokens.token();
    upstream.always((_req, res) => sendJson(res, 503, { error: 'temporarily_unavailable', error_description: 'AADSTS50196: busy' }));
    clock += 3599_000 - 60_000;
    expect(await tokens.token()).toBe(first);
    clock += 60_000;
    const err = await failure(tokens.token());
    expect(err.kind).toBe('upstream_unavailable');
  });
});

describe('the endpoint\'s refusals', () => {
  it.each([
    ['a wrong client secret', { clientSecret: 'not-the-secret-value-000000' }, 401, 'AADSTS7000215: Invalid client secret provided.'],
    ['an unknown tenant', { tenantId: 'no-such-tenant.example' }, 400, "AADSTS90002: Tenant 'no-such-tenant.example' not found."],
    ['an unknown app', { clientId: 'ffffffff-0000-0000-0000-000000000000' }, 400, 'AADSTS700016: Application with identifier'],
    ['a scope without /.default', { scope: 'https://cognitiveservices.azure.com' }, 400, 'AADSTS1002012'],
  ])('%s: the operator\'s problem (a 502, not retried), with Entra\'s reason and no secret', async (_name, over, status, reason) => {
    const err = await failure(source(over).token());
    expect({ kind: err.kind, status: err.status, upstreamStatus: err.upstreamStatus }).toEqual({ kind: 'upstream_error', status: 502, upstreamStatus: status });
    expect(err.message).toContain(`Provider 'az' could not get a Microsoft Entra ID token (HTTP ${status}): ${reason}`);
    // The trace and correlation ids on the following lines are left out.
    expect(err.message).not.toContain('Trace ID');
    expect(err.message).not.toContain(ENTRA_APP.clientSecret);
    expect(isRetryable(err)).toBe(false);
  });

  it('a secret the endpoint echoes is cut out', async () => {
    upstream.once((_req, res) => sendJson(res, 401, { error: 'invalid_client', error_description: `AADSTS7000215: bad secret ${ENTRA_APP.clientSecret}` }));
    const err = await failure(source().token());
    expect(err.message).toContain('bad secret [redacted]');
  });

  it('a 5xx or 429 is the endpoint\'s passing trouble: retried', async () => {
    for (const status of [429, 500, 503]) {
      upstream.once((_req, res) => sendJson(res, status, { error: 'temporarily_unavailable', error_description: 'AADSTS50196: try again' }));
      const err = await failure(source().token());
      expect(err.kind).toBe('upstream_unavailable');
      expect(isRetryable(err)).toBe(true);
    }
  });

  it('an answer without a token or its lifetime is refused', async () => {
    for (const body of [{ token_type: 'Bearer', expires_in: 3599 }, { access_token: 'x' }, { access_token: 'x', expires_in: -1 }]) {
      upstream.once((_req, res) => sendJson(res, 200, body));
      const err = await failure(source().token());
      expect(err.message).toContain('without an access_token and its expires_in');
    }
  });

  it('an unreachable endpoint is upstream_unavailable, naming it', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const err = await failure(source({ authorityHost: `http://127.0.0.1:${port}` }).token());
    expect(err.kind).toBe('upstream_unavailable');
    expect(err.message).toBe(`Provider 'az': Microsoft Entra ID's token endpoint is unreachable at http://127.0.0.1:${port} (ECONNREFUSED).`);
  });

  it('an endpoint that does not answer in time is a timeout', async () => {
    upstream.once(() => undefined);
    const s = entraTokenSource(credential(), { providerId: 'az', connectMs: 1000, timeoutMs: 150, now: () => clock });
    opened.push(s);
    const err = await failure(s.token());
    expect(err.kind).toBe('timeout');
  });
});
