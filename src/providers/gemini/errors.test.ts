/** Google's error answers as the errors the gateway's callers see. */
import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../config/types.js';
import { geminiHttpError } from './errors.js';

describe('gemini errors', () => {
  // The mapping reads only the provider's id.
  const config = { id: 'g' } as ProviderConfig;
  const google = (code: number, status: string, message: string, details?: unknown[]) =>
    JSON.stringify({ error: { code, message, status, ...(details ? { details } : {}) } });

  it.each([
    [400, 'INVALID_ARGUMENT', 'invalid_request', 400],
    [404, 'NOT_FOUND', 'not_found', 404],
    [429, 'RESOURCE_EXHAUSTED', 'rate_limit', 429],
    [500, 'INTERNAL', 'upstream_error', 500],
    [503, 'UNAVAILABLE', 'overloaded', 503],
    [504, 'DEADLINE_EXCEEDED', 'timeout', 504],
  ])('%i %s → %s (%i), the message and Google status kept', (status, googleStatus, kind, callerStatus) => {
    const err = geminiHttpError(config, status, {}, google(status, googleStatus, `model said ${googleStatus}`));
    expect({ kind: err.kind, status: err.status, code: err.code, message: err.message, upstreamStatus: err.upstreamStatus }).toEqual({
      kind,
      status: callerStatus,
      code: googleStatus,
      message: `model said ${googleStatus}`,
      upstreamStatus: status,
    });
  });

  it.each([
    [401, 'UNAUTHENTICATED', [], 401],
    [403, 'PERMISSION_DENIED', [], 403],
    // Google refuses an unknown key with a 400; it is the operator's key all the same.
    [400, 'INVALID_ARGUMENT', [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }], 401],
  ])('%i %s is the operator credential refused (502)', (status, googleStatus, details, upstreamStatus) => {
    const err = geminiHttpError(config, status, {}, google(status, googleStatus, 'API key not valid. Please pass a valid API key.', details));
    expect({ kind: err.kind, status: err.status, upstreamStatus: err.upstreamStatus }).toEqual({ kind: 'upstream_error', status: 502, upstreamStatus });
    expect(err.message).toContain("refused the gateway's credential");
    expect(err.message).toContain('providers.g.apiKey');
    expect(err.headers).toEqual({ 'x-should-retry': 'false' });
  });

  it("turns a 429's RetryInfo into retry-after, unless the answer had one", () => {
    const body = google(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded', [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '36.5s' }]);
    expect(geminiHttpError(config, 429, {}, body).headers).toMatchObject({ 'retry-after': '37' });
    expect(geminiHttpError(config, 429, { 'retry-after': '5' }, body).headers).toMatchObject({ 'retry-after': '5' });
  });

  it('reads the array form a stream without alt=sse errs in', () => {
    const err = geminiHttpError(config, 400, {}, `[${google(400, 'INVALID_ARGUMENT', 'Please use a valid role: user, model.')}]`);
    expect({ message: err.message, code: err.code }).toEqual({ message: 'Please use a valid role: user, model.', code: 'INVALID_ARGUMENT' });
  });

  it('keeps a body that is not Google JSON as the status says', () => {
    const err = geminiHttpError(config, 502, {}, '<html>bad gateway</html>');
    expect({ kind: err.kind, status: err.status }).toEqual({ kind: 'upstream_error', status: 502 });
  });
});
