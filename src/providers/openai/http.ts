/**
 * How OpenAI's API is called over HTTP, and the servers that copy it: the protocols' paths under
 * a base URL that ends in /v1 (the OpenAI SDK's convention), the key as a Bearer token.
 */
import type { ProviderConfig } from '../../config/types.js';
import type { HttpHooks } from '../http.js';
import { protocolPath, urlUnder } from '../url.js';

export const openAiHttp: HttpHooks = {
  url: (config, call) => urlUnder(config.baseUrl, ...protocolPath(call.protocol, call.operation)),
  credential: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
};

/** The model list, `GET {baseUrl}/models`, with the configured headers and the credential. */
export function openAiModels(config: ProviderConfig, hooks: HttpHooks = openAiHttp): { url: URL; headers: Record<string, string> } {
  const credential = config.apiKey ? hooks.credential(config.apiKey) : {};
  return { url: urlUnder(config.baseUrl, 'models'), headers: { ...config.headers, ...credential } };
}

/**
 * OpenAI's own API: the same, and its input-token counter for a Responses count (count-tokens.ts),
 * which servers that copy the API do not have.
 */
export const openAiOwnHttp: HttpHooks = {
  ...openAiHttp,
  url: (config, call) =>
    call.protocol === 'responses' && call.operation === 'count_tokens'
      ? urlUnder(config.baseUrl, 'responses', 'input_tokens')
      : openAiHttp.url(config, call),
};
