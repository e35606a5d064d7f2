/**
 * An upstream's non-2xx answer, turned into a GatewayError that keeps its
 * status and message. A refused provider credential is the operator's problem,
 * not the caller's: it becomes 502 so the caller's SDK does not report a bad key.
 */
import type { ProviderConfig } from '../config/types.js';
import { GatewayError, type ErrorKind } from '../errors.js';
import { isObject } from '../protocols/shallow.js';
import { passBackHeaders } from './response-headers.js';

function kindForStatus(status: number): ErrorKind {
  if (status === 400 || status === 422) return 'invalid_request';
  if (status === 404) return 'not_found';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 503 || status === 529) return 'overloaded';
  if (status >= 500) return 'upstream_error';
  return 'invalid_request';
}

interface ParsedError {
  message?: string;
  type?: string;
  code?: string | null;
  param?: string | null;
}

/** Reads both families' error bodies: `{error:{message,type,code,param}}` and `{type:'error',error:{type,message}}`. */
export function parseErrorBody(text: string): ParsedError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {};
  }
  const inner = isObject(json) && isObject(json.error) ? json.error : isObject(json) ? json : undefined;
  if (!inner) return {};
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const out: ParsedError = {};
  const message = str(inner.message) ?? (isObject(json) ? str(json.message) ?? str(json.detail) : undefined);
  if (message !== undefined) out.message = message;
  const type = str(inner.type);
  if (type !== undefined) out.type = type;
  if (typeof inner.code === 'string' || inner.code === null) out.code = inner.code;
  if (typeof inner.param === 'string' || inner.param === null) out.param = inner.param;
  return out;
}

export function upstreamHttpError(
  provider: ProviderConfig,
  status: number,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  bodyText: string,
): GatewayError {
  const parsed = parseErrorBody(bodyText);
  if (status === 401 || status === 403) {
    return new GatewayError(
      'upstream_error',
      `Provider '${provider.id}' refused the gateway's credential (HTTP ${status}). ` +
        `Your gateway key was accepted; the operator should check providers.${provider.id}.apiKey.`,
      { headers: { 'x-should-retry': 'false' }, cause: bodyText, upstreamStatus: status },
    );
  }
  // The error is re-rendered as JSON in the caller's shape, so the upstream's content type must not come along.
  const { 'content-type': _contentType, ...passed } = passBackHeaders(headers);
  const options: ConstructorParameters<typeof GatewayError>[2] = {
    status,
    upstreamStatus: status,
    headers: passed,
    cause: bodyText,
  };
  if (parsed.type !== undefined) options.upstreamType = parsed.type;
  if (parsed.code !== undefined) options.code = parsed.code;
  if (parsed.param !== undefined) options.param = parsed.param;
  return new GatewayError(kindForStatus(status), parsed.message ?? `Provider '${provider.id}' answered HTTP ${status}.`, options);
}
