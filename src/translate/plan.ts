/**
 * Which protocol a request goes upstream in. A provider that speaks the
 * caller's protocol gets it untouched (passthrough). Otherwise the request is
 * translated into the protocol the provider speaks that loses least for this
 * caller: Responses and Messages both carry reasoning, tool ids and structured
 * content, so they are preferred to Chat for each other's callers. Gemini carries them
 * too (its thought signatures travel sealed where the caller's protocol has no field for
 * them), so it comes before Chat; for its own callers Messages is first, whose tool calls
 * and thinking map part for part onto Gemini's, then Responses.
 */
import type { ProviderConfig } from '../config/types.js';
import type { Protocol } from '../protocols/types.js';
import { translatorFor } from './registry.js';
import type { Translator } from './translator.js';

export type Plan =
  | { readonly upstreamProtocol: Protocol; readonly translator: undefined }
  | { readonly upstreamProtocol: Protocol; readonly translator: Translator };

const preference = {
  responses: ['messages', 'gemini', 'chat'],
  chat: ['responses', 'messages', 'gemini'],
  messages: ['responses', 'gemini', 'chat'],
  gemini: ['messages', 'responses', 'chat'],
} as const satisfies Record<Protocol, readonly Protocol[]>;

export function planUpstream(caller: Protocol, provider: ProviderConfig): Plan {
  if (provider.protocols.has(caller)) return { upstreamProtocol: caller, translator: undefined };
  const upstream = preference[caller].find((p) => provider.protocols.has(p));
  // The config schema requires a provider to speak at least one protocol, and every pair has a translator.
  if (upstream === undefined) throw new Error(`provider '${provider.id}' speaks no protocol this model is called in`);
  return { upstreamProtocol: upstream, translator: translatorFor(caller, upstream)! };
}
