/**
 * Where each protocol lives on a provider, and how the provider wants its
 * credential. The URL convention follows each vendor's SDK: OpenAI-style base
 * URLs end in `/v1`, Anthropic's does not.
 */
import type { ProviderConfig, ProviderType } from '../config/types.js';
import type { Protocol } from '../protocols/types.js';
import type { Operation } from './types.js';

const paths = {
  responses: '/responses',
  chat: '/chat/completions',
  messages: '/messages',
} as const satisfies Record<Protocol, string>;

/** Path prefix between the base URL and the resource, per provider type. */
const versionPrefix = {
  openai: '',
  'openai-compatible': '',
  anthropic: '/v1',
  echo: '',
} as const satisfies Record<ProviderType, string>;

export function endpointUrl(provider: ProviderConfig, protocol: Protocol, operation: Operation): string {
  const path = operation === 'count_tokens' ? '/messages/count_tokens' : paths[protocol];
  return `${provider.baseUrl}${versionPrefix[provider.type]}${path}`;
}

/** The provider credential in the provider's own header style. */
export function credentialHeaders(provider: ProviderConfig): Record<string, string> {
  if (provider.apiKey === undefined || provider.apiKey === '') return {};
  return provider.type === 'anthropic' ? { 'x-api-key': provider.apiKey } : { authorization: `Bearer ${provider.apiKey}` };
}
