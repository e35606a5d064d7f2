/**
 * Vertex AI's error answers as the errors callers see. Google's own are `{error: {code, message,
 * status}}` (`status` a name such as RESOURCE_EXHAUSTED); the model's own come in Anthropic's
 * shape. Either way the status decides the kind and the message is kept (upstream-error.ts); a
 * refused credential is the operator's, named with what to check, and its token is forgotten so
 * that the next call fetches another.
 */
import type { ProviderConfig } from '../../config/types.js';
import { GatewayError } from '../../errors.js';
import { isObject } from '../../protocols/shallow.js';
import { upstreamHttpError } from '../upstream-error.js';
import type { GoogleCredentials } from './google-credentials.js';

/** Where the operator looks when Vertex refuses the gateway's credentials. */
export function credentialsHint(config: ProviderConfig): string {
  const file = config.own.credentialsFile;
  const where =
    typeof file === 'string' ? `the credentials in providers.${config.id}.credentialsFile (${file})` : 'the application default credentials';
  return `the operator should check ${where} and that the account holds the Vertex AI User role (roles/aiplatform.user) on the project`;
}

export function vertexHttpError(
  config: ProviderConfig,
  credentials: GoogleCredentials,
  status: number,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  bodyText: string,
): GatewayError {
  const token = credentials.heldToken();
  const text = token !== undefined && bodyText.includes(token) ? bodyText.split(token).join('[redacted]') : bodyText;
  if (status === 401 || status === 403) {
    // A token the upstream refused is not sent again.
    if (status === 401) credentials.forget();
    return new GatewayError(
      'upstream_error',
      `Provider '${config.id}' refused the gateway's credential (HTTP ${status}${googleDetail(text)}). Your gateway key was accepted; ${credentialsHint(config)}.`,
      { headers: { 'x-should-retry': 'false' }, cause: text, upstreamStatus: status },
    );
  }
  const error = upstreamHttpError(config, status, headers, text);
  const googleStatus = googleStatusOf(text);
  // Google names its error in `status`; it stands where other upstreams put an error code.
  if (googleStatus === undefined || error.code !== null) return error;
  return new GatewayError(error.kind, error.message, {
    status: error.status,
    upstreamStatus: status,
    code: googleStatus,
    cause: text,
    ...(error.headers ? { headers: error.headers } : {}),
    ...(error.upstreamType !== undefined ? { upstreamType: error.upstreamType } : {}),
    ...(error.param !== null ? { param: error.param } : {}),
  });
}

/** Google's `error.status` (PERMISSION_DENIED, RESOURCE_EXHAUSTED…), if the body is Google's error. */
function googleStatusOf(text: string): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const status = isObject(json) && isObject(json.error) ? json.error.status : undefined;
  return typeof status === 'string' && /^[A-Z_]+$/.test(status) ? status : undefined;
}

/** ": STATUS" from Google's error body (PERMISSION_DENIED tells a missing role from a bad token), else nothing. */
function googleDetail(text: string): string {
  const status = googleStatusOf(text);
  return status === undefined ? '' : `: ${status}`;
}
