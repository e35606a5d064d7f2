/**
 * Bedrock's errors, by the name AWS gives them: in an HTTP error answer's `x-amzn-errortype`
 * header ("ThrottlingException:http://internal.amazon.com/..."), and in an exception frame's
 * `:exception-type` inside a stream ("throttlingException"). One table for both, so a throttled
 * call means the same to the caller whichever way it came.
 */
import type { ProviderConfig } from '../../config/types.js';
import { GatewayError, type ErrorKind } from '../../errors.js';
import { passBackHeaders } from '../response-headers.js';
import { parseErrorBody, upstreamHttpError } from '../upstream-error.js';

/** What one AWS error means to the caller: its kind and status, and the Anthropic stream error type. */
interface BedrockErrorMeaning {
  readonly kind: ErrorKind;
  readonly status: number;
  readonly anthropicType: string;
}

/** AWS refusing the gateway's own credential: the operator's problem, never the caller's (see upstream-error.ts). */
const REFUSED = 'refused';

/** By the error's name in lower case (the header and the frames differ in the first letter's case). */
const MEANINGS: Readonly<Record<string, BedrockErrorMeaning | typeof REFUSED>> = {
  accessdeniedexception: REFUSED,
  unrecognizedclientexception: REFUSED,
  expiredtokenexception: REFUSED,
  invalidsignatureexception: REFUSED,
  incompletesignatureexception: REFUSED,
  throttlingexception: { kind: 'rate_limit', status: 429, anthropicType: 'rate_limit_error' },
  servicequotaexceededexception: { kind: 'rate_limit', status: 429, anthropicType: 'rate_limit_error' },
  modelnotreadyexception: { kind: 'overloaded', status: 503, anthropicType: 'overloaded_error' },
  serviceunavailableexception: { kind: 'overloaded', status: 503, anthropicType: 'overloaded_error' },
  validationexception: { kind: 'invalid_request', status: 400, anthropicType: 'invalid_request_error' },
  resourcenotfoundexception: { kind: 'not_found', status: 404, anthropicType: 'not_found_error' },
  modeltimeoutexception: { kind: 'timeout', status: 504, anthropicType: 'api_error' },
  internalserverexception: { kind: 'upstream_error', status: 500, anthropicType: 'api_error' },
  modelstreamerrorexception: { kind: 'upstream_error', status: 500, anthropicType: 'api_error' },
  modelerrorexception: { kind: 'upstream_error', status: 500, anthropicType: 'api_error' },
};

/** An unknown exception inside a stream: a failure of the upstream, worth another attempt. */
const UNKNOWN: BedrockErrorMeaning = { kind: 'upstream_error', status: 500, anthropicType: 'api_error' };

/** The error's name from `x-amzn-errortype` (the part before any ':'). */
export function errorTypeName(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const name = value?.split(':')[0]?.trim();
  return name === undefined || name === '' ? undefined : name;
}

/** What an exception frame's `:exception-type` means; a refused credential inside a stream is an upstream error. */
export function streamExceptionMeaning(name: string): BedrockErrorMeaning {
  const meaning = MEANINGS[name.toLowerCase()];
  return meaning === undefined || meaning === REFUSED ? UNKNOWN : meaning;
}

/** A Bedrock HTTP error answer as the error the caller sees (`HttpHooks.toError`). */
export function bedrockHttpError(
  config: ProviderConfig,
  status: number,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  bodyText: string,
): GatewayError {
  const name = errorTypeName(headers['x-amzn-errortype']);
  const meaning = name === undefined ? undefined : MEANINGS[name.toLowerCase()];
  if (meaning === undefined) return upstreamHttpError(config, status, headers, bodyText);
  if (meaning === REFUSED) {
    return new GatewayError(
      'upstream_error',
      `Provider '${config.id}' refused the gateway's AWS credential (${name}). Your gateway key was accepted; ` +
        `the operator should check the credential of providers.${config.id} (its apiKey, profile or the AWS environment) and its IAM permissions.`,
      { headers: { 'x-should-retry': 'false' }, cause: bodyText, upstreamStatus: status },
    );
  }
  const { 'content-type': _contentType, ...passed } = passBackHeaders(headers);
  const message = parseErrorBody(bodyText).message ?? `Provider '${config.id}' answered ${name} (HTTP ${status}).`;
  return new GatewayError(meaning.kind, message, {
    status: meaning.status,
    upstreamStatus: status,
    upstreamType: meaning.anthropicType,
    headers: passed,
    cause: bodyText,
  });
}
