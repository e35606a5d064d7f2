/**
 * `foundry`: Claude on Microsoft Foundry. Anthropic's Messages API as it is, under
 * `https://{resource}.services.ai.azure.com/anthropic` (`/v1/messages`, with `anthropic-version`
 * and betas in headers as Anthropic's own API takes them); the body's `model` names the Foundry
 * deployment. The key goes in the `x-api-key` header (Foundry takes `api-key` too; Anthropic's
 * Foundry SDK sends this one); or, with an app registration, a Microsoft Entra ID token for
 * Foundry's scope as `Authorization: Bearer` (the token flow is azure-openai's, entra-token.ts).
 */
import { z } from '../../config/zod.js';
import { httpUrl } from '../../config/provider-fields.js';
import {
  createEntraOrKeyProvider,
  ENTRA_CREDENTIAL_FIELDS,
  ENTRA_SECRET_FIELDS,
  entraFields,
  entraJsonSchema,
  entraRules,
  entraSigner,
} from '../azure-openai/entra-config.js';
import type { HttpHooks } from '../http.js';
import { defineKind, type KindIssue } from '../kind.js';
import { protocolPath, urlUnder } from '../url.js';

// A Foundry resource name is a DNS label: letters, digits and inner hyphens, at most 64 characters.
const RESOURCE = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?$/;

/** The scope of Foundry's Entra ID tokens. */
export const FOUNDRY_SCOPE = 'https://ai.azure.com/.default';

/** The Messages API's base URL for a Foundry resource (Anthropic's SDK convention: without /v1). */
export const foundryBaseUrl = (resource: string): string => `https://${resource.toLowerCase()}.services.ai.azure.com/anthropic`;

const http: HttpHooks = {
  url: (config, call) => urlUnder(config.baseUrl, 'v1', ...protocolPath(call.protocol, call.operation)),
  credential: (apiKey) => ({ 'x-api-key': apiKey }),
};

export const foundry = defineKind({
  type: 'foundry',
  summary: 'Claude on Microsoft Foundry (Anthropic\'s Messages API); models name Foundry deployments; give resource or baseUrl; a key or Microsoft Entra ID.',
  protocols: ['messages'],
  fields: {
    resource: z
      .string()
      .regex(RESOURCE, 'must be a Foundry resource name: letters, digits and inner hyphens, at most 64 characters')
      .optional()
      .describe('The Foundry resource name: requests go to https://{resource}.services.ai.azure.com/anthropic/v1/messages. Give this or baseUrl.'),
    baseUrl: httpUrl()
      .optional()
      .describe('Absolute http(s) base URL ending in /anthropic, without /v1 (the gateway adds /v1/messages): another Azure domain, a proxy. Give this or resource.'),
    apiKey: z
      .string()
      .optional()
      .describe('Foundry key, usually "${ANTHROPIC_FOUNDRY_API_KEY}"; sent as the x-api-key header. Or Microsoft Entra ID: tenantId, clientId, clientSecret.'),
    ...entraFields,
  },
  secretFields: [...ENTRA_SECRET_FIELDS],
  credentialFields: [...ENTRA_CREDENTIAL_FIELDS],
  dialect: 'anthropic',
  baseUrl: (entry) => entry.baseUrl ?? (entry.resource === undefined ? undefined : foundryBaseUrl(entry.resource)),
  rules: (entry) => {
    const issues: KindIssue[] = [];
    if (entry.resource === undefined && entry.baseUrl === undefined) issues.push({ path: ['resource'], message: 'required: the Foundry resource name, or a baseUrl' });
    if (entry.resource !== undefined && entry.baseUrl !== undefined) issues.push({ path: ['baseUrl'], message: 'give resource or baseUrl, not both' });
    return [...issues, ...entraRules(entry)];
  },
  jsonSchema: (entry) => {
    entry.oneOf = [{ required: ['resource'] }, { required: ['baseUrl'] }];
    entraJsonSchema(entry);
  },
  describe: { where: (config) => config.baseUrl, credential: 'x-api-key header', keyRequiredBy: 'Microsoft Foundry', signsWith: entraSigner },
  // No `models`: Foundry's Anthropic endpoint has no model list (its SDK leaves `models` out).
  create: (config, deps) => createEntraOrKeyProvider(config, http, deps, FOUNDRY_SCOPE),
});
