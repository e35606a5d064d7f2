/**
 * `azure-openai`: Azure OpenAI, in its v1 API (OpenAI's own request shapes at
 * `https://{resource}.openai.azure.com/openai/v1`, no api-version) or in the deployment form
 * (`apiVersion`, and optionally one `deployment`: see urls.ts). The key goes in an `api-key`
 * header; or, with an app registration's tenantId, clientId and clientSecret, a Microsoft Entra ID
 * token as `Authorization: Bearer` (entra-token.ts).
 */
import { z } from '../../config/zod.js';
import { httpUrl } from '../../config/provider-fields.js';
import type { HttpHooks } from '../http.js';
import { defineKind, type KindIssue } from '../kind.js';
import { createEntraOrKeyProvider, ENTRA_CREDENTIAL_FIELDS, ENTRA_SECRET_FIELDS, entraFields, entraJsonSchema, entraRules, entraSigner } from './entra-config.js';
import { deploymentForm, deploymentUrl, modelsUrl, resourceBaseUrl, resourceEndpoint, v1Url } from './urls.js';

export { resourceBaseUrl } from './urls.js';

// An Azure resource name is a DNS label: letters, digits and inner hyphens, at most 64 characters.
const RESOURCE = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?$/;
// A dated api-version of the deployment form (2024-10-21, 2025-04-01-preview).
const API_VERSION = /^\d{4}-\d{2}-\d{2}(?:-preview)?$/;
// A base URL that ends in the v1 API's path or its openai prefix, which the deployment form adds itself.
// Written case by case rather than with the `i` flag: the JSON Schema states the same pattern, and has no flags.
const V1_API_SUFFIX = '\\/[oO][pP][eE][nN][aA][iI](?:\\/[vV]1)?\\/*$';
const OPENAI_PATH = new RegExp(V1_API_SUFFIX);

/** The scope of Azure OpenAI's Entra ID tokens. */
export const COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default';

const credential = (apiKey: string) => ({ 'api-key': apiKey });

export const azureOpenAi = defineKind({
  type: 'azure-openai',
  summary:
    'Azure OpenAI: its v1 API, or the deployment form with apiVersion; models name deployments; give resource or baseUrl; a key or Microsoft Entra ID.',
  protocols: ['responses', 'chat'],
  fields: {
    resource: z
      .string()
      .regex(RESOURCE, 'must be an Azure resource name: letters, digits and inner hyphens, at most 64 characters')
      .optional()
      .describe(
        'The Azure OpenAI resource name: requests go to https://{resource}.openai.azure.com/openai/v1, or with apiVersion to https://{resource}.openai.azure.com/openai/deployments/... Give this or baseUrl.',
      ),
    baseUrl: httpUrl()
      .optional()
      .describe(
        'Absolute http(s) base URL (another Azure domain, a proxy): of the v1 API, ending in /openai/v1; or with apiVersion the resource endpoint, https://{resource}.openai.azure.com. Give this or resource.',
      ),
    apiKey: z.string().optional().describe('Azure OpenAI key, usually "${AZURE_OPENAI_API_KEY}"; sent as the api-key header. Or Microsoft Entra ID: tenantId, clientId, clientSecret.'),
    apiVersion: z
      .string()
      .regex(API_VERSION, 'must be a dated api-version, such as 2024-10-21 or 2025-04-01-preview')
      .optional()
      .describe(
        'The deployment form: Chat goes to /openai/deployments/{deployment}/chat/completions?api-version={apiVersion}, Responses to /openai/responses?api-version={apiVersion} (a preview version, 2025-03-01-preview or later). Absent: the v1 API.',
      ),
    deployment: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The deployment form: the one deployment every request goes to. Absent: each model\'s upstreamModel names its deployment. Needs apiVersion, and protocols ["chat"] (Responses names the deployment in the body\'s model, that is the upstreamModel).',
      ),
    ...entraFields,
  },
  secretFields: [...ENTRA_SECRET_FIELDS],
  credentialFields: [...ENTRA_CREDENTIAL_FIELDS],
  dialect: 'openai',
  baseUrl: (entry) => {
    if (entry.baseUrl !== undefined) return entry.baseUrl;
    if (entry.resource === undefined) return undefined;
    return entry.apiVersion === undefined ? resourceBaseUrl(entry.resource) : resourceEndpoint(entry.resource);
  },
  rules: (entry) => {
    const issues: KindIssue[] = [];
    if (entry.resource === undefined && entry.baseUrl === undefined) issues.push({ path: ['resource'], message: 'required: the Azure resource name, or a baseUrl' });
    if (entry.resource !== undefined && entry.baseUrl !== undefined) issues.push({ path: ['baseUrl'], message: 'give resource or baseUrl, not both' });
    if (entry.deployment !== undefined && entry.apiVersion === undefined) {
      issues.push({ path: ['apiVersion'], message: 'required with deployment: a deployment is reached at /openai/deployments/{deployment}/...?api-version=...' });
    }
    if (entry.apiVersion !== undefined && entry.baseUrl !== undefined && OPENAI_PATH.test(new URL(entry.baseUrl).pathname)) {
      issues.push({ path: ['baseUrl'], message: 'with apiVersion, the resource endpoint (https://{resource}.openai.azure.com), without /openai or /openai/v1' });
    }
    if (entry.deployment !== undefined && !(entry.protocols?.length === 1 && entry.protocols[0] === 'chat')) {
      issues.push({
        path: ['protocols'],
        message:
          'must be ["chat"] with deployment: Azure serves Responses at /openai/responses, where the body\'s model names the deployment; for Responses leave deployment out and name the deployment in each model\'s upstreamModel',
      });
    }
    return [...issues, ...entraRules(entry)];
  },
  jsonSchema: (entry) => {
    entry.oneOf = [{ required: ['resource'] }, { required: ['baseUrl'] }];
    entraJsonSchema(entry);
    (entry.allOf as unknown[]).push(
      { dependentRequired: { deployment: ['apiVersion'] } },
      // "If A then B", written as "not A, or B".
      { anyOf: [{ not: { required: ['apiVersion', 'baseUrl'] } }, { properties: { baseUrl: { description: "With apiVersion: the resource endpoint, not the v1 API's base URL.", not: { pattern: V1_API_SUFFIX } } } }] },
      { anyOf: [{ not: { required: ['deployment'] } }, { required: ['protocols'], properties: { protocols: { description: 'With deployment: ["chat"], the one protocol a deployment path serves.', const: ['chat'] } } }] },
    );
  },
  describe: { where: (config) => config.baseUrl, credential: 'api-key header', keyRequiredBy: 'Azure OpenAI', signsWith: entraSigner },
  models: (config) => ({ url: modelsUrl(config), headers: { ...config.headers, ...(config.apiKey ? credential(config.apiKey) : {}) } }),
  create: (config, deps) => {
    const form = deploymentForm(config);
    const http: HttpHooks =
      form === undefined
        ? { url: v1Url, credential }
        : // Each call's model names its deployment unless the provider names the one.
          { url: (c, call) => deploymentUrl(c, form, call), urlPerCall: form.deployment === undefined, credential };
    return createEntraOrKeyProvider(config, http, deps, COGNITIVE_SERVICES_SCOPE);
  },
});
