/**
 * A Vertex AI provider: the HTTP provider with Vertex's URLs, a fresh Google access token on each
 * call, and Vertex's errors. The project is in every URL; when the config names none it comes from
 * the credentials, which takes a read or a request, so it is found once before the first call.
 */
import type { ProviderConfig } from '../../config/types.js';
import { GatewayError } from '../../errors.js';
import { createHttpProvider, type HttpHooks, type HttpProviderDeps } from '../http.js';
import type { Provider, UpstreamRequest } from '../types.js';
import { modelCallUrl, publisherOf } from './endpoint.js';
import { credentialsHint, vertexHttpError } from './errors.js';
import { googleCredentials } from './google-credentials.js';

/** The provider's own fields, as the schema let them through. */
export interface VertexFields {
  readonly region: string;
  readonly project: string | undefined;
  readonly credentialsFile: string | undefined;
}

export function vertexFields(config: ProviderConfig): VertexFields {
  const { region, project, credentialsFile } = config.own;
  return {
    region: String(region),
    project: typeof project === 'string' ? project : undefined,
    credentialsFile: typeof credentialsFile === 'string' ? credentialsFile : undefined,
  };
}

export function createVertexProvider(config: ProviderConfig, deps: HttpProviderDeps | undefined): Provider {
  const fields = vertexFields(config);
  const credentials = googleCredentials(fields.credentialsFile, config.timeouts.headersMs);
  let project = fields.project;
  const hooks: HttpHooks = {
    urlPerCall: true,
    url: (c, call) => {
      if (call.model === undefined) throw new RangeError('the request names no model');
      // send() below finds the project before any URL is asked for.
      return modelCallUrl(c.baseUrl, project!, fields.region, { publisher: publisherOf(call.protocol), operation: call.operation, model: call.model, stream: call.stream });
    },
    // The credential is a short-lived token, set per call by `sign`.
    credential: () => ({}),
    sign: () => credentials.headers().catch((err: unknown) => Promise.reject(credentialError(config, err))),
    toError: (c, status, headers, bodyText) => vertexHttpError(c, credentials, status, headers, bodyText),
  };
  const http = createHttpProvider(config, hooks, deps);
  const send = (req: UpstreamRequest) => {
    if (project !== undefined) return http.send(req);
    return credentials.project().then(
      (found) => {
        if (found === undefined) throw noProject(config);
        project = found;
        return http.send(req);
      },
      (err: unknown) => Promise.reject(credentialError(config, err)),
    );
  };
  return { ...http, send };
}

/**
 * Credentials that yield no token: unreadable, refused by the token endpoint, or none found.
 * Like a refused credential, the operator's problem; stated as a 401 so that the model's fallbacks are tried.
 */
function credentialError(config: ProviderConfig, err: unknown): unknown {
  if (err instanceof GatewayError) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new GatewayError(
    'upstream_error',
    `Provider '${config.id}' could not get a Google access token (${reason}); ${credentialsHint(config)}.`,
    { headers: { 'x-should-retry': 'false' }, cause: err, upstreamStatus: 401 },
  );
}

function noProject(config: ProviderConfig): GatewayError {
  return new GatewayError(
    'upstream_error',
    `Provider '${config.id}' has no Google Cloud project: set providers.${config.id}.project, or use credentials that name one.`,
    { headers: { 'x-should-retry': 'false' }, upstreamStatus: 401 },
  );
}
