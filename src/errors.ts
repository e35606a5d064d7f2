/**
 * The one HTTP error type. Thrown where a problem is detected, rendered in the
 * caller's protocol by `pipeline/handle.ts` (see `protocols/errors.ts`).
 */
export type ErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_too_large'
  | 'rate_limit'
  | 'timeout'
  | 'upstream_unavailable'
  | 'upstream_error'
  | 'overloaded'
  | 'internal';

const defaultStatus = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_too_large: 413,
  rate_limit: 429,
  timeout: 504,
  upstream_unavailable: 502,
  upstream_error: 502,
  overloaded: 503,
  internal: 500,
} as const satisfies Record<ErrorKind, number>;

export interface GatewayErrorOptions {
  status?: number;
  param?: string | null;
  /** OpenAI-style `code` (e.g. `model_not_found`, `invalid_api_key`). */
  code?: string | null;
  /** The upstream's own error `type`, kept when the caller speaks the same family. */
  upstreamType?: string;
  /** The HTTP status the provider answered, when the error is its answer (decides retries and fallbacks). */
  upstreamStatus?: number;
  /** For logs only; never shown to the client. */
  cause?: unknown;
  /** Response headers to pass back with the error (rate-limit, request id, ...). */
  headers?: Record<string, string>;
  /**
   * The provider's own error answer, credential cut out, sent to the caller as it came instead of
   * a rendered error: set only on a passthrough route, where the caller reads the provider's wording.
   */
  upstreamBody?: UpstreamErrorBody;
}

export interface UpstreamErrorBody {
  readonly text: string;
  readonly contentType: string;
}

export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  readonly kind: ErrorKind;
  readonly status: number;
  readonly param: string | null;
  readonly code: string | null;
  readonly upstreamType: string | undefined;
  readonly upstreamStatus: number | undefined;
  readonly headers: Record<string, string> | undefined;
  readonly upstreamBody: UpstreamErrorBody | undefined;

  constructor(kind: ErrorKind, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.status = options.status ?? defaultStatus[kind];
    this.param = options.param ?? null;
    this.code = options.code ?? null;
    this.upstreamType = options.upstreamType;
    this.upstreamStatus = options.upstreamStatus;
    this.headers = options.headers;
    this.upstreamBody = options.upstreamBody;
  }
}

export const invalidRequest = (message: string, param?: string, code?: string) =>
  new GatewayError('invalid_request', message, { param: param ?? null, code: code ?? null });
export const authenticationFailed = (message: string) =>
  new GatewayError('authentication', message, { code: 'invalid_api_key' });
export const permissionDenied = (message: string, param?: string) =>
  new GatewayError('permission', message, { param: param ?? null });
export const notFound = (message: string, code?: string, param?: string) =>
  new GatewayError('not_found', message, { code: code ?? null, param: param ?? null });

/** The gateway is at one of its own caps: 503 (529 for Messages callers) with `retry-after: 1`, which the SDKs honour. */
export const overloaded = (message: string, extra: { readonly code?: string; readonly headers?: Record<string, string>; readonly cause?: unknown } = {}) =>
  new GatewayError('overloaded', message, {
    ...(extra.code !== undefined ? { code: extra.code } : {}),
    ...(extra.cause !== undefined ? { cause: extra.cause } : {}),
    headers: { 'retry-after': '1', ...extra.headers },
  });

/** Problems in a config file, each with the path it was found at. */
export interface ConfigIssue {
  path: string;
  message: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly issues: readonly ConfigIssue[];
  readonly source: string | undefined;

  constructor(issues: readonly ConfigIssue[], source?: string) {
    const where = source ? ` in ${source}` : '';
    super(
      `Invalid configuration${where}:\n` +
        issues.map((i) => `  - ${i.path || '(root)'}: ${i.message}`).join('\n'),
    );
    this.issues = issues;
    this.source = source;
  }
}

/** A CLI failure that should end the process with a given exit code. */
export class ExitError extends Error {
  override readonly name = 'ExitError';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}
