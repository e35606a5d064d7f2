/**
 * The client headers that go upstream. An allow-list, so the client's
 * credentials, cookies and hop-by-hop headers never leave the gateway.
 */
import type { IncomingHttpHeaders } from 'node:http';

const FORWARDED = ['accept', 'anthropic-version', 'anthropic-beta', 'openai-beta', 'user-agent'] as const;

export function upstreamHeaders(client: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = { 'content-type': 'application/json' };
  for (const name of FORWARDED) {
    const value = client[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return out;
}
