/**
 * Renders a GatewayError in the caller's protocol: a JSON body before the
 * response started, or an in-band stream frame after.
 * @see docs/protocols.md, "Errors before the stream" (statuses and body shapes per family)
 * @see docs/protocols.md, "Errors in a stream" (each protocol's in-band error and what the SDKs do with it)
 */
import { assertNever } from '../assert-never.js';
import type { ErrorKind, GatewayError } from '../errors.js';
import { dataFrame, eventFrame } from '../sse/format.js';
import type { ErrorFamily } from './types.js';

/** OpenAI's `error.type` and default `code` per kind (status decides what the SDKs do; these are for humans). */
const openaiTypes = {
  invalid_request: ['invalid_request_error', null],
  authentication: ['invalid_request_error', 'invalid_api_key'],
  permission: ['permission_error', null],
  not_found: ['invalid_request_error', null],
  method_not_allowed: ['invalid_request_error', null],
  request_too_large: ['invalid_request_error', 'request_too_large'],
  rate_limit: ['rate_limit_error', 'rate_limit_exceeded'],
  timeout: ['server_error', 'timeout'],
  upstream_unavailable: ['server_error', 'upstream_unavailable'],
  upstream_error: ['server_error', null],
  overloaded: ['service_unavailable_error', 'server_is_overloaded'],
  internal: ['server_error', null],
} as const satisfies Record<ErrorKind, readonly [string, string | null]>;

/** Anthropic's documented `error.type` per kind. */
const anthropicTypes = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  method_not_allowed: 'invalid_request_error',
  request_too_large: 'request_too_large',
  rate_limit: 'rate_limit_error',
  timeout: 'timeout_error',
  upstream_unavailable: 'api_error',
  upstream_error: 'api_error',
  overloaded: 'overloaded_error',
  internal: 'api_error',
} as const satisfies Record<ErrorKind, string>;

/**
 * Google's canonical status name per kind (google.rpc.Code), as the Gemini API puts it in `error.status`.
 * A method the path does not take has no canonical name of its own: UNIMPLEMENTED is the nearest.
 */
const googleStatuses = {
  invalid_request: 'INVALID_ARGUMENT',
  authentication: 'UNAUTHENTICATED',
  permission: 'PERMISSION_DENIED',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'UNIMPLEMENTED',
  request_too_large: 'INVALID_ARGUMENT',
  rate_limit: 'RESOURCE_EXHAUSTED',
  timeout: 'DEADLINE_EXCEEDED',
  upstream_unavailable: 'UNAVAILABLE',
  upstream_error: 'INTERNAL',
  overloaded: 'UNAVAILABLE',
  internal: 'INTERNAL',
} as const satisfies Record<ErrorKind, string>;

export interface RenderedError {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** The `error` object of the OpenAI body, also used inside stream frames. */
export function openaiErrorObject(err: GatewayError, upstreamFamily?: ErrorFamily) {
  const [type, code] = openaiTypes[err.kind];
  return {
    message: err.message,
    type: upstreamFamily === 'openai' && err.upstreamType ? err.upstreamType : type,
    param: err.param,
    code: err.code ?? code,
  };
}

function anthropicErrorObject(err: GatewayError, upstreamFamily?: ErrorFamily) {
  const type = upstreamFamily === 'anthropic' && err.upstreamType ? err.upstreamType : anthropicTypes[err.kind];
  return { type, message: err.message };
}

/** Google's `error` object: the HTTP status as `code`, and the canonical status name. */
function googleErrorObject(err: GatewayError, status: number, upstreamFamily?: ErrorFamily) {
  return {
    code: status,
    message: err.message,
    status: upstreamFamily === 'google' && err.upstreamType ? err.upstreamType : googleStatuses[err.kind],
  };
}

export interface RenderOptions {
  readonly requestId: string;
  /** The family of the upstream that produced the error, if any: its own `type` is kept when it matches the caller's. */
  readonly upstreamFamily?: ErrorFamily;
}

/** The header each family answers with the request's id in. */
export const requestIdHeader = (family: ErrorFamily): string => (family === 'anthropic' ? 'request-id' : 'x-request-id');

/** The status a family's clients read for `err`: Anthropic's clients treat 529 as "overloaded, retry"; the others expect 503. */
function statusFor(err: GatewayError, family: ErrorFamily): number {
  if (err.kind !== 'overloaded') return err.status;
  if (family === 'anthropic') return err.status === 503 ? 529 : err.status;
  return err.status === 529 ? 503 : err.status;
}

function errorBody(err: GatewayError, family: ErrorFamily, status: number, options: RenderOptions): unknown {
  switch (family) {
    case 'openai':
      return { error: openaiErrorObject(err, options.upstreamFamily) };
    case 'anthropic':
      return { type: 'error', error: anthropicErrorObject(err, options.upstreamFamily), request_id: options.requestId };
    case 'google':
      return { error: googleErrorObject(err, status, options.upstreamFamily) };
    default:
      return assertNever(family);
  }
}

/** `err` in the error body of the caller's family (its protocol's `errorFamily`). */
export function renderError(err: GatewayError, family: ErrorFamily, options: RenderOptions): RenderedError {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...err.headers };
  const status = statusFor(err, family);
  const body = errorBody(err, family, status, options);
  headers[requestIdHeader(family)] ??= options.requestId;
  return { status, headers, body: JSON.stringify(body) };
}

/** Chat: a data-only frame carrying `{error}`; no `[DONE]` after it. */
export function chatStreamErrorFrame(err: GatewayError): string {
  return dataFrame({ error: openaiErrorObject(err) });
}

/**
 * Gemini: a data-only frame holding the error body, as Google's API ends a broken stream; the
 * SDK throws it as an ApiError with the frame's `code`.
 */
export function geminiStreamErrorFrame(err: GatewayError): string {
  return dataFrame({ error: googleErrorObject(err, statusFor(err, 'google')) });
}

/** Messages: a named `error` event. */
export function messagesStreamErrorFrame(err: GatewayError): string {
  return eventFrame('error', { type: 'error', error: anthropicErrorObject(err) });
}

/**
 * Responses: an `error` event carrying both the documented flat fields and the
 * nested `error` object seen in production, then
 * `response.failed` when a response was announced, so strict parsers of either
 * shape and both SDK majors see the failure.
 */
export function responsesStreamErrorFrames(
  err: GatewayError,
  nextSequence: number,
  announced: Record<string, unknown> | undefined,
): string {
  const inner = openaiErrorObject(err);
  const errorEvent = {
    type: 'error',
    sequence_number: nextSequence,
    code: inner.code ?? inner.type,
    message: inner.message,
    param: inner.param,
    error: inner,
  };
  let out = eventFrame('error', errorEvent);
  if (announced) {
    const failed = {
      type: 'response.failed',
      sequence_number: nextSequence + 1,
      response: { ...announced, status: 'failed', error: { code: 'server_error', message: err.message } },
    };
    out += eventFrame('response.failed', failed);
  }
  return out;
}
