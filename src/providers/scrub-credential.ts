import type { ProviderConfig } from '../config/types.js';

/**
 * An upstream's error text with the provider's own credentials cut out: some servers echo
 * the key they were sent, and the text goes to the client, the log and the inspector.
 */
export function scrubCredential(text: string, provider: ProviderConfig): string {
  // Configured headers may carry credentials too (Azure's api-key); short values are left, they would match too much.
  for (const secret of [provider.apiKey, ...provider.secrets, ...Object.values(provider.headers)]) {
    if (secret && secret.length >= 8 && text.includes(secret)) text = text.split(secret).join('[redacted]');
  }
  return text;
}
