/** `openai-compatible`: a server that copies OpenAI's Chat Completions (a local model server, a router). */
import { httpUrl } from '../../config/provider-fields.js';
import { createHttpProvider } from '../http.js';
import { defineKind } from '../kind.js';
import { openAiHttp, openAiModels } from '../openai/http.js';

export const openAiCompatible = defineKind({
  type: 'openai-compatible',
  summary: 'A server with an OpenAI-style API (a local model server, a router); baseUrl required.',
  protocols: ['chat'],
  fields: {
    baseUrl: httpUrl()
      .optional()
      .describe('Absolute http(s) base URL where the server\'s OpenAI-style API lives, usually ending in /v1. Required.'),
  },
  dialect: 'compatible',
  baseUrl: (entry) => entry.baseUrl,
  // Checked as a rule, not by the schema, so that it is reported together with the other rules' findings.
  rules: (entry) => (entry.baseUrl === undefined ? [{ path: ['baseUrl'], message: 'required for openai-compatible providers' }] : []),
  jsonSchema: (entry) => {
    entry.required = [...((entry.required as string[] | undefined) ?? []), 'baseUrl'];
  },
  describe: { where: (config) => config.baseUrl, credential: 'Authorization: Bearer' },
  models: (config) => openAiModels(config),
  create: (config, deps) => createHttpProvider(config, openAiHttp, deps),
});
