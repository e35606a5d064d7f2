/**
 * The client headers that go upstream. An allow-list, so the client's
 * credentials, cookies and hop-by-hop headers never leave the gateway; each
 * vendor's own headers go only to an upstream of that vendor's protocol.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Protocol } from '../protocols/types.js';

const COMMON = ['accept', 'user-agent'] as const;
const ANTHROPIC = ['anthropic-version', 'anthropic-beta'] as const;
const OPENAI = ['openai-beta'] as const;

/** Sent to a Messages upstream when the caller spoke another protocol: the version every model accepts. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

export function upstreamHeaders(client: IncomingHttpHeaders, upstream: Protocol): Record<string, string> {
  const out: Record<string, string> = { 'content-type': 'application/json' };
  const copy = (names: readonly string[]) => {
    for (const name of names) {
      const value = client[name];
      if (value !== undefined) out[name] = Array.isArray(value) ? value.join(',') : value;
    }
  };
  copy(COMMON);
  if (upstream === 'messages') {
    copy(ANTHROPIC);
    out['anthropic-version'] ??= DEFAULT_ANTHROPIC_VERSION;
  } else {
    copy(OPENAI);
  }
  return out;
}
