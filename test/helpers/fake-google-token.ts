/**
 * A Google OAuth token endpoint on loopback that behaves as Google's does for a service account:
 * it takes only the JWT bearer grant (`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`,
 * form-encoded), whose `assertion` must be an RS256 JWT signed with the test service account's
 * private key, issued by its email, for the URL it was posted to (`aud`), asking for the
 * cloud-platform scope, and neither expired nor valid for more than an hour. Refusals are in
 * Google's OAuth error shape. It issues short-lived tokens and remembers them, so that a fake API
 * can accept only those (`check`).
 *
 * The service account is made here: an RSA key pair from node:crypto, and its key file with
 * `token_uri` pointing at this endpoint.
 */
import { generateKeyPairSync, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sendJson, startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import type { Received } from './received.js';

export const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';
export const TEST_PROJECT = 'gateway-test-project';
export const TEST_SERVICE_ACCOUNT = `model-gateway@${TEST_PROJECT}.iam.gserviceaccount.com`;

/** What a fake API learns of a bearer token. */
export type TokenState = 'valid' | 'expired' | 'unknown';

export interface FakeGoogleToken {
  /** The token endpoint, as the key file's token_uri names it. */
  readonly tokenUri: string;
  /** The service account's key file, written to a temporary folder. */
  readonly credentialsFile: string;
  /** Every grant it answered with a token, in order. */
  readonly issued: readonly { readonly token: string; readonly expiresAt: number }[];
  /** Every grant request, answered or refused. */
  readonly requests: readonly Received[];
  /** What it has to say of a token presented to an API. */
  check(token: string): TokenState;
  /** The `expires_in` of the next tokens, in seconds (default 3600). */
  lifetimeSeconds: number;
  /** The next tokens' value, instead of a random one. */
  nextToken: (() => string) | undefined;
  /** Ends every token issued so far, as if their hour had passed. */
  expireAll(): void;
  close(): Promise<void>;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** An RS256 JWT signed with `key`, for tests that present a grant of their own. */
export function signJwt(payload: Record<string, unknown>, key: KeyObject, header: Record<string, unknown> = { alg: 'RS256', typ: 'JWT' }): string {
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  return `${input}.${b64url(sign('RSA-SHA256', Buffer.from(input), key))}`;
}

/** Google's OAuth error answer. */
const refuse = (res: ServerResponse, error: string, description: string) => sendJson(res, 400, { error, error_description: description });

export async function startFakeGoogleToken(): Promise<FakeGoogleToken> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const upstream: FakeUpstream = await startFakeUpstream();
  const tokenUri = `${upstream.url}/token`;
  const folder = mkdtempSync(join(tmpdir(), 'fake-google-'));
  const credentialsFile = join(folder, 'service-account.json');
  writeFileSync(
    credentialsFile,
    JSON.stringify({
      type: 'service_account',
      project_id: TEST_PROJECT,
      private_key_id: randomBytes(20).toString('hex'),
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: TEST_SERVICE_ACCOUNT,
      client_id: '100000000000000000001',
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: tokenUri,
    }),
  );
  const issued: { token: string; expiresAt: number }[] = [];
  const known = new Map<string, { expiresAt: number }>();

  const fake: FakeGoogleToken = {
    tokenUri,
    credentialsFile,
    issued,
    requests: upstream.received,
    lifetimeSeconds: 3600,
    nextToken: undefined,
    check(token) {
      const held = known.get(token);
      if (!held) return 'unknown';
      return held.expiresAt > Date.now() ? 'valid' : 'expired';
    },
    expireAll() {
      for (const held of known.values()) held.expiresAt = Date.now() - 1;
    },
    async close() {
      await upstream.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };

  upstream.always((req, res) => {
    if (req.method !== 'POST' || req.url !== '/token') {
      sendJson(res, 404, { error: 'not_found', error_description: `no ${req.method} ${req.url}` });
      return;
    }
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
      refuse(res, 'invalid_request', 'Invalid Content-Type: the grant must be form-encoded.');
      return;
    }
    const form = new URLSearchParams(req.body.toString('utf8'));
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      refuse(res, 'unsupported_grant_type', `Invalid grant_type: ${form.get('grant_type') ?? ''}`);
      return;
    }
    const problem = assertionProblem(form.get('assertion') ?? '', publicKey, tokenUri);
    if (problem !== undefined) {
      refuse(res, 'invalid_grant', problem);
      return;
    }
    const token = fake.nextToken?.() ?? `ya29.fake-${randomBytes(24).toString('base64url')}`;
    const expiresAt = Date.now() + fake.lifetimeSeconds * 1000;
    issued.push({ token, expiresAt });
    known.set(token, { expiresAt });
    sendJson(res, 200, { access_token: token, expires_in: fake.lifetimeSeconds, token_type: 'Bearer' });
  });
  return fake;
}

/** What is wrong with a grant's assertion, in Google's words where it has them; undefined when it is good. */
function assertionProblem(assertion: string, publicKey: KeyObject, audience: string): string | undefined {
  const parts = assertion.split('.');
  if (parts.length !== 3) return 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.';
  const [header, payload, signature] = parts as [string, string, string];
  let head: Record<string, unknown>;
  let claims: Record<string, unknown>;
  try {
    head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>;
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return 'Invalid JWT: the header or the claims are not JSON.';
  }
  if (head.alg !== 'RS256') return `Invalid JWT: algorithm ${String(head.alg)} is not RS256.`;
  if (!verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'))) return 'Invalid JWT Signature.';
  if (claims.iss !== TEST_SERVICE_ACCOUNT) return 'Invalid JWT: the issuer is not the service account.';
  if (claims.aud !== audience) return `Invalid JWT: the audience ${String(claims.aud)} is not this token endpoint.`;
  if (typeof claims.scope !== 'string' || !claims.scope.split(' ').includes(CLOUD_PLATFORM)) return 'Invalid JWT: the scope is missing cloud-platform.';
  const now = Math.floor(Date.now() / 1000);
  const { iat, exp } = claims;
  if (typeof iat !== 'number' || typeof exp !== 'number' || exp <= now || iat > now + 60 || exp - iat > 3600) {
    return 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.';
  }
  return undefined;
}
