import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors.js';
import { retryAfterMs } from '../providers/response-headers.js';
import { isRetryable, MAX_RETRY_AFTER_MS, retryDelayMs, shouldFallBack } from './retry-policy.js';

const upstream = (status: number) => new GatewayError('upstream_error', 'x', { status, upstreamStatus: status });

describe('retry policy', () => {
  it.each([
    [upstream(408), true, true],
    [upstream(409), true, true],
    [upstream(429), true, true],
    [upstream(500), true, true],
    [upstream(529), true, true],
    [upstream(400), false, false],
    [upstream(401), false, true],
    [upstream(403), false, true],
    [upstream(404), false, true],
    [upstream(422), false, false],
    [new GatewayError('upstream_unavailable', 'refused'), true, true],
    [new GatewayError('timeout', 'no headers'), true, true],
    [new GatewayError('invalid_request', 'bad'), false, false],
    [new Error('not ours'), false, false],
  ])('%s: retry %s, fall back %s', (err, retry, fallBack) => {
    expect(isRetryable(err)).toBe(retry);
    expect(shouldFallBack(err)).toBe(fallBack);
  });

  it.each([
    [{ 'retry-after-ms': '250' }, 250],
    [{ 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    [{ 'retry-after': '2' }, 2000],
    [{ 'retry-after': ['3', '4'] }, 3000],
    [{ 'retry-after': 'Sun, 22 Nov 2026 10:00:05 GMT' }, 5000],
    [{ 'retry-after': 'Sun, 22 Nov 2026 09:59:00 GMT' }, 0],
    [{ 'retry-after': 'soon' }, undefined],
    [{ 'retry-after-ms': '-5' }, undefined],
    [{}, undefined],
    [undefined, undefined],
  ])('retry-after from %j is %s ms', (headers, ms) => {
    expect(retryAfterMs(headers, Date.parse('Sun, 22 Nov 2026 10:00:00 GMT'))).toBe(ms);
  });

  it('backs off 0.5 s, 1 s, 2 s … capped at 8 s, less up to 25% jitter', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(n, undefined, () => 0))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect(retryDelayMs(1, undefined, () => 1)).toBe(375);
  });

  it('waits exactly what the server asked, unless it is more than a minute', () => {
    expect(retryDelayMs(1, 1234)).toBe(1234);
    expect(retryDelayMs(1, MAX_RETRY_AFTER_MS)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryDelayMs(1, MAX_RETRY_AFTER_MS + 1)).toBeUndefined();
  });
});
