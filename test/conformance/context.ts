/**
 * The translation context the suite reads and writes one protocol's own wire shapes with: on the caller's
 * side (the request the SDK sends, what it parsed) and on the fake upstream's (what it received, its answer).
 */
import type { Protocol } from '#src/protocols/types.js';
import type * as Ir from '#src/translate/ir.js';

/** Each protocol is written in its first-party dialect, as its own vendor's API speaks it. */
const dialects: Record<Protocol, Ir.TranslateContext['upstreamDialect']> = {
  chat: 'openai',
  responses: 'openai',
  messages: 'anthropic',
  // Gemini's codec reads no dialect; the gemini provider kind states this one.
  gemini: 'compatible',
};

export function contextFor(protocol: Protocol): Ir.TranslateContext {
  let n = 0;
  return {
    caller: protocol,
    upstream: protocol,
    requestedModel: 'm',
    upstreamModel: 'upstream-model',
    upstreamDialect: dialects[protocol],
    now: () => 1_700_000_000_000,
    newId: (prefix) => `${prefix}${++n}`,
    warnings: [],
    toolNames: new Map(),
  };
}
