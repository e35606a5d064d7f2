/**
 * Which protocol a request goes upstream in. Today only a provider that speaks
 * the caller's protocol natively can serve it (passthrough); translation between
 * protocols slots in here, returning a translator for `caller -> upstream`,
 * without the rest of the pipeline changing.
 */
import type { ProviderConfig } from '../config/types.js';
import { invalidRequest } from '../errors.js';
import type { Protocol } from '../protocols/types.js';

export interface Plan {
  readonly upstreamProtocol: Protocol;
  /** False for passthrough: the body goes upstream with only `model` replaced, and the answer comes back byte for byte. */
  readonly translated: false;
}

const names = { responses: 'Responses', chat: 'Chat Completions', messages: 'Messages' } as const satisfies Record<
  Protocol,
  string
>;

export function planUpstream(caller: Protocol, provider: ProviderConfig, model: string): Plan {
  if (provider.protocols.has(caller)) return { upstreamProtocol: caller, translated: false };
  const spoken = [...provider.protocols].map((p) => names[p]).join(', ');
  throw invalidRequest(
    `Model '${model}' is served by provider '${provider.id}', which speaks ${spoken}; ` +
      `this gateway version cannot translate ${names[caller]} requests to it.`,
    'model',
  );
}
