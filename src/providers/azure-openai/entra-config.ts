/**
 * The config fields for Microsoft Entra ID instead of a key, shared by the Azure kinds
 * (azure-openai, foundry): an app registration's tenant, client id and secret for the
 * client-credentials flow (entra-token.ts), its rules, the same rules in the JSON Schema, and a
 * provider that sends a token from them instead of a key.
 */
import { z } from '../../config/zod.js';
import { httpUrl } from '../../config/provider-fields.js';
import type { ProviderConfig } from '../../config/types.js';
import { GatewayError } from '../../errors.js';
import { createHttpProvider, type HttpHooks, type HttpProviderDeps } from '../http.js';
import type { KindIssue } from '../kind.js';
import type { Provider } from '../types.js';
import { upstreamHttpError } from '../upstream-error.js';
import { DEFAULT_AUTHORITY_HOST, type EntraCredential, entraTokenSource, type TokenSource } from './entra-token.js';

export const entraFields = {
  tenantId: z
    .string()
    .min(1)
    .optional()
    .describe('Microsoft Entra ID instead of a key: the tenant (directory) id or domain of the app registration, usually "${AZURE_TENANT_ID}". With clientId and clientSecret.'),
  clientId: z
    .string()
    .min(1)
    .optional()
    .describe('Microsoft Entra ID: the app registration\'s application (client) id, usually "${AZURE_CLIENT_ID}". With tenantId and clientSecret.'),
  clientSecret: z
    .string()
    .min(1)
    .optional()
    .describe('Microsoft Entra ID: a client secret of the app registration, usually "${AZURE_CLIENT_SECRET}". With tenantId and clientId.'),
  authorityHost: httpUrl()
    .optional()
    .describe(
      `Microsoft Entra ID: the authority tokens are asked of, at {authorityHost}/{tenantId}/oauth2/v2.0/token. Default: ${DEFAULT_AUTHORITY_HOST} (another for a sovereign cloud).`,
    ),
};

export const ENTRA_SECRET_FIELDS = ['clientSecret'] as const;
export const ENTRA_CREDENTIAL_FIELDS = ['tenantId', 'clientId', 'clientSecret'] as const;

interface EntraEntry {
  readonly apiKey?: string | undefined;
  readonly tenantId?: string | undefined;
  readonly clientId?: string | undefined;
  readonly clientSecret?: string | undefined;
  readonly authorityHost?: string | undefined;
}

const TRIO = ['tenantId', 'clientId', 'clientSecret'] as const;

/** Whether the entry authenticates with Entra ID (any of its three fields written). */
export const usesEntra = (entry: EntraEntry): boolean => TRIO.some((f) => entry[f] !== undefined);

export function entraRules(entry: EntraEntry): KindIssue[] {
  const issues: KindIssue[] = [];
  if (usesEntra(entry)) {
    for (const f of TRIO) {
      if (entry[f] === undefined) issues.push({ path: [f], message: 'required: Microsoft Entra ID\'s client-credentials flow takes tenantId, clientId and clientSecret' });
    }
    if (entry.apiKey !== undefined) issues.push({ path: ['apiKey'], message: 'give apiKey or Microsoft Entra ID (tenantId, clientId, clientSecret), not both' });
  } else if (entry.authorityHost !== undefined) {
    issues.push({ path: ['authorityHost'], message: 'only with Microsoft Entra ID (tenantId, clientId, clientSecret)' });
  }
  return issues;
}

/** The same rules in the entry's JSON Schema node; `allOf` collects the kinds' conditions. */
export function entraJsonSchema(entry: Record<string, unknown>): void {
  if (!Array.isArray(entry.allOf)) entry.allOf = [];
  const allOf = entry.allOf as unknown[];
  allOf.push(
    { dependentRequired: { tenantId: ['clientId', 'clientSecret'], clientId: ['tenantId', 'clientSecret'], clientSecret: ['tenantId', 'clientId'], authorityHost: ['tenantId'] } },
    { not: { required: ['apiKey', 'tenantId'] } },
  );
}

/**
 * The provider's token source for `scope`, or undefined when it authenticates with a key. The rules
 * saw all three fields or none, and `${ENV}` references are resolved by now.
 */
export function entraTokensFor(config: ProviderConfig, scope: string): TokenSource | undefined {
  const { tenantId, clientId, clientSecret, authorityHost } = config.own;
  if (typeof tenantId !== 'string' || typeof clientId !== 'string' || typeof clientSecret !== 'string') return undefined;
  const credential: EntraCredential = {
    tenantId,
    clientId,
    clientSecret,
    authorityHost: typeof authorityHost === 'string' ? authorityHost : DEFAULT_AUTHORITY_HOST,
    scope,
  };
  // The token endpoint answers in well under a second; the provider's own wait for headers can be minutes.
  return entraTokenSource(credential, { providerId: config.id, connectMs: config.timeouts.connectMs, timeoutMs: Math.min(config.timeouts.headersMs, 30_000) });
}

/**
 * The HTTP provider for `hooks`, with a token for `scope` as `Authorization: Bearer` when the entry
 * names an app registration (the key's header is then not sent: there is no key).
 */
export function createEntraOrKeyProvider(config: ProviderConfig, hooks: HttpHooks, deps: HttpProviderDeps | undefined, scope: string): Provider {
  const tokens = entraTokensFor(config, scope);
  if (tokens === undefined) return createHttpProvider(config, hooks, deps);
  const provider = createHttpProvider(
    config,
    {
      ...hooks,
      sign: async () => ({ authorization: `Bearer ${await tokens.token()}` }),
      // A token refused before it expired was revoked: the next call asks for another.
      answer: (answer) => {
        if (answer.status === 401) tokens.forget();
        return answer;
      },
      // A refused token points the operator at the app registration, not at an apiKey there is none of.
      toError: (c, status, headers, bodyText) =>
        status === 401 || status === 403
          ? new GatewayError(
              'upstream_error',
              `Provider '${c.id}' refused the gateway's Microsoft Entra ID token (HTTP ${status}). Your gateway key was accepted; the operator should check ` +
                `the app registration of providers.${c.id} (tenantId, clientId, clientSecret) and its role on the resource.`,
              { headers: { 'x-should-retry': 'false' }, cause: bodyText, upstreamStatus: status },
            )
          : (hooks.toError ?? upstreamHttpError)(c, status, headers, bodyText),
    },
    deps,
  );
  return {
    ...provider,
    async close() {
      await provider.close();
      await tokens.close();
    },
  };
}

/** `check`'s words for an entry that authenticates with Entra ID instead of a key. */
export const entraSigner = (config: ProviderConfig): string | undefined =>
  typeof config.own.clientId === 'string' ? `Microsoft Entra ID token (app ${config.own.clientId})` : undefined;
