/**
 * The protocols a provider calls one of its models in. Most kinds call every model in the same
 * protocols; a kind whose models come from several publishers narrows them per model (Vertex AI:
 * Claude in Messages, Gemini in Gemini's own protocol).
 */
import type { ProviderConfig } from '../config/types.js';
import { providerKind } from './kinds.js';

/** The provider as it calls `upstreamModel`: itself, or a copy that speaks only what that model is called in. */
export function providerForModel(provider: ProviderConfig, upstreamModel: string | undefined): ProviderConfig {
  const narrowed = upstreamModel === undefined ? undefined : providerKind(provider.type).modelProtocols?.(upstreamModel);
  if (narrowed === undefined) return provider;
  return { ...provider, protocols: new Set(narrowed.filter((p) => provider.protocols.has(p))) };
}
