/**
 * `azure-openai`: Azure OpenAI's v1 API, which takes OpenAI's own request shapes at
 * `https://{resource}.openai.azure.com/openai/v1` (no api-version), with the key in an `api-key`
 * header; the `model` in the body names a deployment.
 */
import { z } from 'zod';
import { httpUrl } from '../../config/provider-fields.js';
import { createHttpProvider, type HttpHooks } from '../http.js';
import { defineKind } from '../kind.js';
import { openAiModels } from '../openai/http.js';
import { protocolPath, urlUnder } from '../url.js';

// An Azure resource name is a DNS label: letters, digits and inner hyphens, at most 64 characters.
const RESOURCE = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?$/;

/** The v1 API's base URL for a resource. */
export const resourceBaseUrl = (resource: string): string => `https://${resource.toLowerCase()}.openai.azure.com/openai/v1`;

const http: HttpHooks = {
  url: (config, call) => urlUnder(config.baseUrl, ...protocolPath(call.protocol, call.operation)),
  credential: (apiKey) => ({ 'api-key': apiKey }),
};

export const azureOpenAi = defineKind({
  type: 'azure-openai',
  summary: 'Azure OpenAI (its v1 API); models name deployments; give resource or baseUrl.',
  protocols: ['responses', 'chat'],
  fields: {
    resource: z
      .string()
      .regex(RESOURCE, 'must be an Azure resource name: letters, digits and inner hyphens, at most 64 characters')
      .optional()
      .describe('The Azure OpenAI resource name: requests go to https://{resource}.openai.azure.com/openai/v1. Give this or baseUrl.'),
    baseUrl: httpUrl()
      .optional()
      .describe('Absolute http(s) base URL of the v1 API, ending in /openai/v1 (another Azure domain, a proxy). Give this or resource.'),
    apiKey: z.string().optional().describe('Azure OpenAI key, usually "${AZURE_OPENAI_API_KEY}"; sent as the api-key header.'),
  },
  dialect: 'openai',
  baseUrl: (entry) => entry.baseUrl ?? (entry.resource === undefined ? undefined : resourceBaseUrl(entry.resource)),
  rules: (entry) => {
    if (entry.resource === undefined && entry.baseUrl === undefined) return [{ path: ['resource'], message: 'required: the Azure resource name, or a baseUrl' }];
    if (entry.resource !== undefined && entry.baseUrl !== undefined) return [{ path: ['baseUrl'], message: 'give resource or baseUrl, not both' }];
    return [];
  },
  jsonSchema: (entry) => {
    entry.oneOf = [{ required: ['resource'] }, { required: ['baseUrl'] }];
  },
  describe: { where: (config) => config.baseUrl, credential: 'api-key header', keyRequiredBy: 'Azure OpenAI' },
  models: (config) => openAiModels(config, http),
  create: (config, deps) => createHttpProvider(config, http, deps),
});
