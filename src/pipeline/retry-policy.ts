/**
 * When a failed upstream call is tried again, and after how long. The rules are
 * the official SDKs' (openai-node, anthropic-sdk-typescript): retry connection
 * errors, timeouts and 408/409/429/5xx (529 is Anthropic's "overloaded"), back off
 * exponentially from 0.5 s to at most 8 s with up to 25% jitter, and honour the
 * server's `retry-after-ms` / `retry-after` when it asks for less than a minute.
 */
import { GatewayError } from '../errors.js';

const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8000;
/** A server asking for a longer pause than this is not waited for (the SDKs use the same bound). */
export const MAX_RETRY_AFTER_MS = 60_000;

export const isRetryableStatus = (status: number): boolean => status === 408 || status === 409 || status === 429 || status >= 500;

/**
 * Whether a failure that survived its retries should move on to the model's fallbacks:
 * the retryable ones, plus a provider refusing the gateway's credential or not knowing
 * the model — problems of this provider, not of the request.
 */
export function shouldFallBack(err: unknown): boolean {
  if (!(err instanceof GatewayError)) return false;
  if (err.kind === 'upstream_unavailable' || err.kind === 'timeout') return true;
  return err.upstreamStatus !== undefined && (isRetryableStatus(err.upstreamStatus) || [401, 403, 404].includes(err.upstreamStatus));
}

/** Whether this failure may be retried on the same provider. */
export function isRetryable(err: unknown): boolean {
  if (!(err instanceof GatewayError)) return false;
  if (err.kind === 'upstream_unavailable' || err.kind === 'timeout') return err.upstreamStatus === undefined || isRetryableStatus(err.upstreamStatus);
  return err.upstreamStatus !== undefined && isRetryableStatus(err.upstreamStatus);
}

/** Whether the provider refused the gateway's credential (401/403). */
export const isCredentialRefusal = (err: unknown): boolean =>
  err instanceof GatewayError && (err.upstreamStatus === 401 || err.upstreamStatus === 403);


/**
 * The pause before retry number `retry` (1 for the first retry), or undefined when the
 * server asked for a pause too long to wait for.
 */
export function retryDelayMs(retry: number, askedMs: number | undefined, random = Math.random): number | undefined {
  if (askedMs !== undefined) return askedMs <= MAX_RETRY_AFTER_MS ? askedMs : undefined;
  const base = Math.min(INITIAL_DELAY_MS * 2 ** (retry - 1), MAX_DELAY_MS);
  return base * (1 - 0.25 * random());
}
