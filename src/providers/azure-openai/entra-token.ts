/**
 * Microsoft Entra ID's client-credentials flow, for the Azure kinds (azure-openai, foundry): a token
 * for one scope, asked of the tenant's token endpoint with an app registration's client id and
 * secret, kept until shortly before it expires and shared by the calls that wait for it. One form
 * post on the undici Pool the gateway already loads, rather than `@azure/identity`, which would
 * load a large library (and its own HTTP stack) for it.
 */
import { GatewayError } from '../../errors.js';
import { Pool } from '../undici-lean.js';
import { urlUnder } from '../url.js';

export const DEFAULT_AUTHORITY_HOST = 'https://login.microsoftonline.com';

/** What the flow needs: the app registration, its tenant, where the tenant's authority is, and the scope asked for. */
export interface EntraCredential {
  readonly tenantId: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** `https://login.microsoftonline.com`, or a sovereign cloud's (or a test's) authority. */
  readonly authorityHost: string;
  /** The resource's `.default` scope (`https://cognitiveservices.azure.com/.default`). */
  readonly scope: string;
}

export interface TokenSourceOptions {
  /** The provider, for error messages. */
  readonly providerId: string;
  readonly connectMs: number;
  /** Longest wait for the token endpoint's whole answer. */
  readonly timeoutMs: number;
  /** The clock, in ms since the epoch (tests move it). */
  readonly now?: () => number;
}

export interface TokenSource {
  /** A token with time left on it: the one held, or a fresh one. */
  token(): Promise<string>;
  /** Drops the token held (the upstream refused it), so that the next call asks for another. */
  forget(): void;
  close(): Promise<void>;
}

/** The tenant's v2.0 token endpoint. */
export const tokenUrl = (c: Pick<EntraCredential, 'authorityHost' | 'tenantId'>): URL => urlUnder(c.authorityHost, c.tenantId, 'oauth2', 'v2.0', 'token');

// A token is renewed this long before it expires (as Azure's own libraries do), or at half its
// life when it lives shorter than twice that: a call never leaves with a token about to lapse.
const RENEW_BEFORE_MS = 5 * 60_000;

interface Held {
  readonly token: string;
  readonly renewAt: number;
  readonly expiresAt: number;
}

export function entraTokenSource(credential: EntraCredential, options: TokenSourceOptions): TokenSource {
  const now = options.now ?? Date.now;
  const url = tokenUrl(credential);
  let pool: InstanceType<typeof Pool> | undefined;
  let held: Held | undefined;
  let pending: Promise<Held> | undefined;

  const fetchToken = async (): Promise<Held> => {
    pool ??= new Pool(url.origin, { connect: { timeout: options.connectMs }, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs });
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: credential.clientId,
      client_secret: credential.clientSecret,
      scope: credential.scope,
    });
    const asked = now();
    let status: number;
    let text: string;
    try {
      const answer = await pool.request({
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      status = answer.statusCode;
      text = await answer.body.text();
    } catch (err) {
      throw unreachable(err, options.providerId, url);
    }
    const json = parseJson(text);
    if (status !== 200) throw refused(status, json, text, options.providerId, credential);
    const token = json?.access_token;
    const expiresIn = Number(json?.expires_in);
    if (typeof token !== 'string' || token === '' || !Number.isFinite(expiresIn) || expiresIn <= 0) {
      throw new GatewayError('upstream_error', `Provider '${options.providerId}': Microsoft Entra ID's token endpoint answered without an access_token and its expires_in.`);
    }
    // Counted from when it was asked for: the answer's own delay is not time the token has left.
    const lifetime = expiresIn * 1000;
    return { token, expiresAt: asked + lifetime, renewAt: asked + lifetime - Math.min(RENEW_BEFORE_MS, lifetime / 2) };
  };

  const renew = (): Promise<Held> => {
    pending ??= fetchToken()
      .then((fresh) => {
        held = fresh;
        return fresh;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };

  return {
    async token() {
      const t = now();
      if (held !== undefined && t < held.renewAt) return held.token;
      try {
        return (await renew()).token;
      } catch (err) {
        // The token endpoint failing while the held token still has time: that token serves meanwhile.
        if (held !== undefined && now() < held.expiresAt) return held.token;
        throw err;
      }
    },
    forget() {
      held = undefined;
    },
    async close() {
      await pool?.close();
    },
  };
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The token endpoint's refusal: its `error_description` (first line; the rest is trace and correlation ids). */
function refused(status: number, json: Record<string, unknown> | undefined, text: string, providerId: string, credential: EntraCredential): GatewayError {
  const description = typeof json?.error_description === 'string' ? json.error_description : typeof json?.error === 'string' ? json.error : text.slice(0, 200);
  const said = (description.split(/\r?\n/)[0] ?? '').split(credential.clientSecret).join('[redacted]').trim();
  const message = `Provider '${providerId}' could not get a Microsoft Entra ID token (HTTP ${status}): ${said || 'no reason given'}`;
  // A 429 or 5xx is the token endpoint's passing trouble, retried like the upstream's own; a 4xx
  // refuses the app registration, which the operator must fix (the caller sees a 502, as for a refused key).
  return new GatewayError(status === 429 || status >= 500 ? 'upstream_unavailable' : 'upstream_error', message, { upstreamStatus: status });
}

function unreachable(err: unknown, providerId: string, url: URL): GatewayError {
  const code = (err as { code?: unknown; name?: unknown } | undefined)?.code;
  const name = (err as { name?: unknown } | undefined)?.name;
  if (name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new GatewayError('timeout', `Provider '${providerId}': Microsoft Entra ID's token endpoint at ${url.origin} did not answer in time.`, { cause: err });
  }
  const suffix = typeof code === 'string' ? ` (${code})` : '';
  return new GatewayError('upstream_unavailable', `Provider '${providerId}': Microsoft Entra ID's token endpoint is unreachable at ${url.origin}${suffix}.`, { cause: err });
}
