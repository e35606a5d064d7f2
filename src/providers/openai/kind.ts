/** `openai`: OpenAI's own API. */
import { z } from '../../config/zod.js';
import { httpUrl } from '../../config/provider-fields.js';
import { createHttpProvider } from '../http.js';
import { defineKind } from '../kind.js';
import { openAiModels, openAiOwnHttp } from './http.js';

const BASE_URL = 'https://api.openai.com/v1';

export const openai = defineKind({
  type: 'openai',
  summary: "OpenAI's API.",
  protocols: ['responses', 'chat'],
  fields: {
    baseUrl: httpUrl().optional().describe(`Absolute http(s) base URL, ending in /v1. Default: ${BASE_URL}.`),
    apiKey: z.string().optional().describe('OpenAI API key, usually "${OPENAI_API_KEY}"; sent as Authorization: Bearer.'),
  },
  dialect: 'openai',
  countsInputTokens: true,
  baseUrl: (entry) => entry.baseUrl ?? BASE_URL,
  describe: { where: (config) => config.baseUrl, credential: 'Authorization: Bearer', keyRequiredBy: 'OpenAI' },
  models: (config) => openAiModels(config),
  create: (config, deps) => createHttpProvider(config, openAiOwnHttp, deps),
});
