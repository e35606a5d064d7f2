/** Bedrock's HTTP errors, by `x-amzn-errortype`, as the caller sees them. */
import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../config/types.js';
import { bedrockHttpError } from './errors.js';

const config = { id: 'aws', apiKey: undefined, headers: {}, secrets: [] } as unknown as ProviderConfig;
const answer = (type: string | undefined, status: number) =>
  bedrockHttpError(config, status, type === undefined ? {} : { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` }, JSON.stringify({ message: `${type} happened` }));

describe('bedrock HTTP errors', () => {
  it.each([
    ['ThrottlingException', 429, 'rate_limit', 429],
    ['ServiceQuotaExceededException', 400, 'rate_limit', 429],
    ['ModelNotReadyException', 429, 'overloaded', 503],
    ['ServiceUnavailableException', 503, 'overloaded', 503],
    ['ValidationException', 400, 'invalid_request', 400],
    ['ResourceNotFoundException', 404, 'not_found', 404],
    ['ModelTimeoutException', 408, 'timeout', 504],
    ['InternalServerException', 500, 'upstream_error', 500],
    ['ModelErrorException', 424, 'upstream_error', 500],
  ])('%s (HTTP %i) → %s %i, with its message', (type, status, kind, callerStatus) => {
    const err = answer(type, status);
    expect({ kind: err.kind, status: err.status, upstreamStatus: err.upstreamStatus }).toEqual({ kind, status: callerStatus, upstreamStatus: status });
    expect(err.message).toBe(`${type} happened`);
  });

  it.each(['AccessDeniedException', 'UnrecognizedClientException', 'ExpiredTokenException', 'InvalidSignatureException'])(
    "%s: the operator's credential was refused, a 502 naming the provider that is not retried",
    (type) => {
      const err = answer(type, 403);
      expect({ kind: err.kind, status: err.status, upstreamStatus: err.upstreamStatus }).toEqual({ kind: 'upstream_error', status: 502, upstreamStatus: 403 });
      expect(err.message).toContain("Provider 'aws' refused the gateway's AWS credential");
      expect(err.headers).toEqual({ 'x-should-retry': 'false' });
    },
  );

  it('an answer without x-amzn-errortype is read by its status', () => {
    expect(answer(undefined, 429)).toMatchObject({ kind: 'rate_limit', status: 429 });
  });
});
