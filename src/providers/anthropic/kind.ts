/** `anthropic`: Anthropic's API. */
import { z } from '../../config/zod.js';
import { httpUrl } from '../../config/provider-fields.js';
import { DEFAULT_ANTHROPIC_VERSION } from '../../protocols/messages/version.js';
import { createHttpProvider, type HttpHooks } from '../http.js';
import { defineKind } from '../kind.js';
import { protocolPath, urlUnder } from '../url.js';

// The Anthropic SDK's convention: the base URL has no /v1; the client adds /v1/messages.
const BASE_URL = 'https://api.anthropic.com';

const http: HttpHooks = {
  url: (config, call) => urlUnder(config.baseUrl, 'v1', ...protocolPath(call.protocol, call.operation)),
  credential: (apiKey) => ({ 'x-api-key': apiKey }),
};

export const anthropic = defineKind({
  type: 'anthropic',
  summary: "Anthropic's API.",
  protocols: ['messages'],
  fields: {
    baseUrl: httpUrl().optional().describe(`Absolute http(s) base URL, without /v1 (the gateway adds /v1/messages). Default: ${BASE_URL}.`),
    apiKey: z.string().optional().describe('Anthropic API key, usually "${ANTHROPIC_API_KEY}"; sent as the x-api-key header.'),
  },
  dialect: 'anthropic',
  baseUrl: (entry) => entry.baseUrl ?? BASE_URL,
  describe: { where: (config) => config.baseUrl, credential: 'x-api-key header', keyRequiredBy: 'Anthropic' },
  models: (config) => ({
    url: urlUnder(config.baseUrl, 'v1', 'models'),
    headers: { ...config.headers, ...(config.apiKey ? http.credential(config.apiKey) : {}), 'anthropic-version': DEFAULT_ANTHROPIC_VERSION },
  }),
  create: (config, deps) => createHttpProvider(config, http, deps),
});
