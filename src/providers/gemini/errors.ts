/**
 * The Gemini API's error answers as the errors callers see. Google writes them as
 * `{error: {code, message, status, details}}`, `status` a name such as RESOURCE_EXHAUSTED (and, for
 * a stream asked for without `alt=sse`, inside a one-element array). The HTTP status decides the
 * kind and the message is kept (upstream-error.ts); Google's `status` stands where other upstreams
 * put an error code.
 *
 * Two of Google's habits are undone here. A key the API does not know is refused with 400
 * INVALID_ARGUMENT (reason API_KEY_INVALID), which a caller would read as its own mistake: it is
 * the operator's key, so it is stated as a refused credential (401), which also lets the model's
 * fallbacks and the provider's other credentials be tried. And a 429 says when to come back in a
 * RetryInfo detail, not a `retry-after` header: it becomes the header the gateway and callers read.
 */
import type { ProviderConfig } from '../../config/types.js';
import { GatewayError } from '../../errors.js';
import { isObject } from '../../protocols/shallow.js';
import { upstreamHttpError } from '../upstream-error.js';

/** What the gateway reads from Google's error body. */
export interface GoogleError {
  readonly message?: string;
  /** PERMISSION_DENIED, RESOURCE_EXHAUSTED, … */
  readonly status?: string;
  /** ErrorInfo reasons in `details` (API_KEY_INVALID, …). */
  readonly reasons: readonly string[];
  /** RetryInfo's `retryDelay` in whole seconds, rounded up. */
  readonly retryAfterSeconds?: number;
}

export function parseGoogleError(text: string): GoogleError | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const outer = Array.isArray(json) ? (json[0] as unknown) : json;
  if (!isObject(outer) || !isObject(outer.error)) return undefined;
  const { message, status, details } = outer.error;
  const reasons: string[] = [];
  let retryAfterSeconds: number | undefined;
  for (const detail of Array.isArray(details) ? details : []) {
    if (!isObject(detail)) continue;
    if (typeof detail.reason === 'string') reasons.push(detail.reason);
    // A Duration in proto JSON: decimal seconds with an `s` ("37s", "0.5s").
    const delay = typeof detail.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay)?.[1] : undefined;
    if (delay !== undefined) retryAfterSeconds = Math.max(1, Math.ceil(Number(delay)));
  }
  return {
    ...(typeof message === 'string' ? { message } : {}),
    ...(typeof status === 'string' && /^[A-Z_]+$/.test(status) ? { status } : {}),
    reasons,
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  };
}

const KEY_HINT = 'a Gemini API key, allowed to call the Generative Language API';

export function geminiHttpError(
  config: ProviderConfig,
  status: number,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  bodyText: string,
): GatewayError {
  const google = parseGoogleError(bodyText);
  const keyInvalid = status === 400 && google !== undefined && google.reasons.includes('API_KEY_INVALID');
  if (status === 401 || status === 403 || keyInvalid) {
    const detail = google?.status === undefined ? '' : `: ${keyInvalid ? 'API_KEY_INVALID' : google.status}`;
    return new GatewayError(
      'upstream_error',
      `Provider '${config.id}' refused the gateway's credential (HTTP ${status}${detail}). Your gateway key was accepted; the operator should check providers.${config.id}.apiKey (${KEY_HINT}).`,
      { headers: { 'x-should-retry': 'false' }, cause: bodyText, upstreamStatus: keyInvalid ? 401 : status },
    );
  }
  const withRetry =
    google?.retryAfterSeconds !== undefined && headers['retry-after'] === undefined ? { ...headers, 'retry-after': String(google.retryAfterSeconds) } : headers;
  const error = upstreamHttpError(config, status, withRetry, bodyText);
  if (google === undefined) return error;
  // Google's message, also from the array form that upstream-error.ts does not read.
  return new GatewayError(error.kind, google.message ?? error.message, {
    status: error.status,
    upstreamStatus: status,
    code: error.code ?? google.status ?? null,
    cause: bodyText,
    ...(error.headers ? { headers: error.headers } : {}),
    ...(error.upstreamType !== undefined ? { upstreamType: error.upstreamType } : {}),
    ...(error.param !== null ? { param: error.param } : {}),
  });
}
