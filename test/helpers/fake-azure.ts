/**
 * Fakes that behave as Azure's services do where the gateway can tell.
 *
 * Azure OpenAI (`fakeAzure`): the key in the `api-key` header, or a Microsoft Entra ID token as
 * `Authorization: Bearer` that the fake token endpoint issued for Azure OpenAI's scope and that
 * has not expired (both at once, or neither, is refused 401). The v1 API under /openai/v1/ takes
 * no dated api-version; the deployment form (/openai/deployments/{deployment}/chat/completions,
 * and /openai/responses with the deployment in the body's model) refuses a missing api-version
 * 404 and an unknown one 400, in Azure's error shape; an unknown deployment is 404. Anything else
 * is 404. The answers are the canned OpenAI ones: Azure answers in OpenAI's shapes.
 *
 * Claude on Microsoft Foundry (`fakeFoundry`): /anthropic/v1/messages (and count_tokens), the key in
 * `x-api-key` or `api-key`, or a token issued for Foundry's scope; the canned Anthropic answers.
 *
 * Microsoft Entra ID (`fakeEntra`): the v2.0 token endpoint of one tenant, the client-credentials
 * grant for one app registration, refusing the rest with Entra's AADSTS errors.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { cannedReply } from './canned.js';
import { sendJson } from './fake-upstream.js';
import type { Behaviour, Received } from './received.js';

export const AZURE_KEY = 'azure-provider-secret-key-0123';
export const FOUNDRY_KEY = 'foundry-provider-secret-key-0456';

/** The app registration the fake tenant knows. */
export const ENTRA_APP = {
  tenantId: '0c9b1c5e-5d4f-4c55-9a33-7f6a4ce8e2a1',
  clientId: 'a4b1e6d2-3c8f-4e0a-b7d9-2f5c6e1a9b30',
  clientSecret: 'entra-client-secret-value-0123456789',
} as const;

export const COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default';
export const FOUNDRY_SCOPE = 'https://ai.azure.com/.default';

/** Dated api-versions the deployment form knows; Responses only from 2025-03-01-preview. */
export const CHAT_API_VERSIONS: readonly string[] = ['2024-06-01', '2024-10-21', '2025-01-01-preview', '2025-03-01-preview', '2025-04-01-preview'];
export const RESPONSES_API_VERSIONS: readonly string[] = ['2025-03-01-preview', '2025-04-01-preview'];

/** Azure's error body: `code` and `message` inside `error`. */
const refuse = (res: ServerResponse, status: number, message: string, code = String(status)) => sendJson(res, status, { error: { code, message } });

interface Issued {
  readonly scope: string;
  readonly expiresAt: number;
}

export interface FakeEntra {
  /** The token endpoint, to serve from a fake upstream (its origin is the provider's authorityHost). */
  readonly behaviour: Behaviour;
  /** Tokens issued so far. */
  readonly issued: string[];
  /** The lifetime of the tokens issued next, in seconds (Entra's are about an hour). */
  expiresIn: number;
  /** Whether `token` was issued here for `scope` and has not expired. */
  accepts(token: string, scope: string): boolean;
}

/** Entra's error body: an OAuth error and an AADSTS description, with codes and a trace id. */
const oauthError = (res: ServerResponse, status: number, error: string, code: number, description: string) =>
  sendJson(res, status, {
    error,
    error_description: `AADSTS${code}: ${description}\r\nTrace ID: 0000aaaa-11bb-cccc-dd22-eeeeee333333\r\nCorrelation ID: aaaa0000-bb11-2222-33cc-444444dddddd\r\nTimestamp: 2026-01-01 00:00:00Z`,
    error_codes: [code],
    timestamp: '2026-01-01 00:00:00Z',
    trace_id: '0000aaaa-11bb-cccc-dd22-eeeeee333333',
    correlation_id: 'aaaa0000-bb11-2222-33cc-444444dddddd',
  });

export function fakeEntra(app: typeof ENTRA_APP = ENTRA_APP): FakeEntra {
  const tokens = new Map<string, Issued>();
  const entra: FakeEntra = {
    issued: [],
    expiresIn: 3599,
    accepts: (token, scope) => {
      const t = tokens.get(token);
      return t !== undefined && t.scope === scope && Date.now() < t.expiresAt;
    },
    behaviour: (req: Received, res: ServerResponse) => {
      const match = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(req.url.split('?')[0] ?? '');
      if (req.method !== 'POST' || !match) {
        res.writeHead(404);
        res.end();
        return;
      }
      if (decodeURIComponent(match[1]!) !== app.tenantId) {
        oauthError(res, 400, 'invalid_tenant', 90002, `Tenant '${match[1]}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.`);
        return;
      }
      if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
        oauthError(res, 400, 'invalid_request', 900144, "The request body must contain the following parameter: 'grant_type'.");
        return;
      }
      const form = new URLSearchParams(req.body.toString('utf8'));
      if (form.get('grant_type') !== 'client_credentials') {
        oauthError(res, 400, 'unsupported_grant_type', 70003, 'The app requested an unsupported grant type.');
        return;
      }
      if (form.get('client_id') !== app.clientId) {
        oauthError(res, 400, 'unauthorized_client', 700016, `Application with identifier '${form.get('client_id')}' was not found in the directory.`);
        return;
      }
      if (form.get('client_secret') !== app.clientSecret) {
        oauthError(res, 401, 'invalid_client', 7000215, 'Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.');
        return;
      }
      const scope = form.get('scope') ?? '';
      if (scope !== COGNITIVE_SERVICES_SCOPE && scope !== FOUNDRY_SCOPE) {
        oauthError(res, 400, 'invalid_scope', 1002012, `The provided value for scope ${scope} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier.`);
        return;
      }
      const token = `eyJ0eXAiOiJKV1Qi.${randomBytes(24).toString('base64url')}`;
      tokens.set(token, { scope, expiresAt: Date.now() + entra.expiresIn * 1000 });
      entra.issued.push(token);
      sendJson(res, 200, { token_type: 'Bearer', expires_in: entra.expiresIn, ext_expires_in: entra.expiresIn, access_token: token });
    },
  };
  return entra;
}

export interface FakeAzureOptions {
  readonly key?: string;
  /** The token endpoint whose tokens are accepted; absent: no token is. */
  readonly entra?: FakeEntra;
  /** The deployments the resource has; absent: any name is one. */
  readonly deployments?: readonly string[];
}

/** What a service takes: its key in one of `keyHeaders`, or a token for `scope`. */
interface Credentials {
  readonly key: string;
  readonly keyHeaders: readonly string[];
  readonly entra: FakeEntra | undefined;
  readonly scope: string;
}

/** Refuses a call without exactly one good credential; true when refused. */
function refusedCredential(req: Received, res: ServerResponse, { key, keyHeaders, entra, scope }: Credentials): boolean {
  const apiKey = keyHeaders.map((h) => req.headers[h]).find((v) => v !== undefined);
  const authorization = req.headers.authorization;
  if (apiKey !== undefined && authorization !== undefined) {
    refuse(res, 401, 'Access denied: give the api-key header or an Authorization header, not both.');
    return true;
  }
  if (authorization !== undefined) {
    const token = /^Bearer (\S+)$/.exec(authorization)?.[1];
    if (token === undefined || entra === undefined || !entra.accepts(token, scope)) {
      const audience = scope.replace('/.default', '');
      refuse(res, 401, `Unauthorized. Access token is missing, invalid, audience is incorrect (${audience}), or have expired.`, 'PermissionDenied');
      return true;
    }
    return false;
  }
  if (apiKey !== key) {
    refuse(
      res,
      401,
      apiKey === undefined
        ? 'Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.'
        : 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
    );
    return true;
  }
  return false;
}

/** The api-version check of the deployment form; true when refused. */
function refusedVersion(res: ServerResponse, version: string | null, known: readonly string[]): boolean {
  if (version === null) {
    refuse(res, 404, 'Resource not found');
    return true;
  }
  if (!known.includes(version)) {
    refuse(res, 400, 'API version not supported', 'BadRequest');
    return true;
  }
  return false;
}

export function fakeAzure(options: string | FakeAzureOptions = {}): Behaviour {
  const { key = AZURE_KEY, entra, deployments } = typeof options === 'string' ? { key: options } : options;
  const unknownDeployment = (res: ServerResponse, name: unknown): boolean => {
    if (deployments === undefined || (typeof name === 'string' && deployments.includes(name))) return false;
    refuse(res, 404, 'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.', 'DeploymentNotFound');
    return true;
  };
  return (req: Received, res: ServerResponse) => {
    if (refusedCredential(req, res, { key, keyHeaders: ['api-key'], entra, scope: COGNITIVE_SERVICES_SCOPE })) return;
    const url = new URL(req.url, 'http://azure.invalid');
    const version = url.searchParams.get('api-version');
    const path = url.pathname;
    const body = (req.json ?? {}) as { model?: unknown };
    if (req.method !== 'POST') {
      refuse(res, 404, 'Resource not found');
      return;
    }
    if (path === '/openai/v1/chat/completions' || path === '/openai/v1/responses') {
      // The v1 API takes no dated version; `preview` and `latest` name its own two.
      if (version !== null && version !== 'preview' && version !== 'latest') {
        refuse(res, 400, 'API version not supported', 'BadRequest');
        return;
      }
      if (unknownDeployment(res, body.model)) return;
      cannedReply({ ...req, url: path.replace('/openai/v1/', '/v1/') }, res);
      return;
    }
    const chat = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(path);
    if (chat) {
      if (refusedVersion(res, version, CHAT_API_VERSIONS) || unknownDeployment(res, decodeURIComponent(chat[1]!))) return;
      cannedReply({ ...req, url: '/v1/chat/completions' }, res);
      return;
    }
    if (path === '/openai/responses') {
      if (refusedVersion(res, version, RESPONSES_API_VERSIONS) || unknownDeployment(res, body.model)) return;
      cannedReply({ ...req, url: '/v1/responses' }, res);
      return;
    }
    refuse(res, 404, 'Resource not found');
  };
}

export interface FakeFoundryOptions {
  readonly key?: string;
  readonly entra?: FakeEntra;
}

export function fakeFoundry(options: FakeFoundryOptions = {}): Behaviour {
  const { key = FOUNDRY_KEY, entra } = options;
  return (req: Received, res: ServerResponse) => {
    if (refusedCredential(req, res, { key, keyHeaders: ['x-api-key', 'api-key'], entra, scope: FOUNDRY_SCOPE })) return;
    const path = req.url.split('?')[0] ?? '';
    if (req.method !== 'POST' || (path !== '/anthropic/v1/messages' && path !== '/anthropic/v1/messages/count_tokens')) {
      refuse(res, 404, 'Resource not found');
      return;
    }
    cannedReply({ ...req, url: path.replace('/anthropic/', '/') }, res);
  };
}
