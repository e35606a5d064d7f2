/**
 * `gemini`: Google's Gemini API (the Generative Language API of Google AI Studio keys). It speaks
 * Gemini's own `generateContent` protocol, the only one that carries Gemini 3's thought signatures
 * back and forth (Google's OpenAI-compatible endpoint drops them, and tool loops then fail). The
 * model and the stream flag are in the URL, not the body (endpoint.ts); the key travels in
 * `x-goog-api-key`, never in the query, so it stays out of URLs that get logged.
 */
import { z } from '../../config/zod.js';
import { httpUrl } from '../../config/provider-fields.js';
import { createHttpProvider, type HttpHooks } from '../http.js';
import { defineKind } from '../kind.js';
import { GEMINI_BASE_URL, geminiCallUrl, modelsUrl } from './endpoint.js';
import { geminiHttpError } from './errors.js';

const http: HttpHooks = {
  urlPerCall: true,
  url: (config, call) => {
    if (call.model === undefined) throw new RangeError('the request names no model');
    return geminiCallUrl(config.baseUrl, { operation: call.operation, model: call.model, stream: call.stream });
  },
  credential: (apiKey) => ({ 'x-goog-api-key': apiKey }),
  toError: geminiHttpError,
};

export const gemini = defineKind({
  type: 'gemini',
  summary: "Google's Gemini API (generateContent, with Gemini 3's thought signatures); a Gemini API key.",
  protocols: ['gemini'],
  fields: {
    baseUrl: httpUrl()
      .optional()
      .describe(`Absolute http(s) base URL, with its API version (the gateway adds /models/{model}:generateContent). Default: ${GEMINI_BASE_URL}.`),
    apiKey: z.string().optional().describe('Gemini API key, usually "${GEMINI_API_KEY}"; sent as the x-goog-api-key header.'),
  },
  // Gemini's codec reads no dialect; this is the one the OpenAI-shaped parts of a request are closest to.
  dialect: 'compatible',
  // `countTokens`: a translated count (Claude Code's, before it compacts) asks Gemini rather than estimating.
  countsInputTokens: true,
  baseUrl: (entry) => entry.baseUrl ?? GEMINI_BASE_URL,
  describe: { where: (config) => config.baseUrl, credential: 'x-goog-api-key header', keyRequiredBy: 'Google' },
  models: (config) => ({
    url: modelsUrl(config.baseUrl),
    headers: { ...config.headers, ...(config.apiKey ? http.credential(config.apiKey) : {}) },
  }),
  create: (config, deps) => createHttpProvider(config, http, deps),
});
