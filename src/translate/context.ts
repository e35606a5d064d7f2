/**
 * The context for encoding an answer that no upstream gave: a provider that answers the caller's
 * protocol itself (the echo provider) builds an IR response and encodes it with the caller's
 * codec, so caller and "upstream" are the same protocol and nothing is renamed.
 */
import type { Protocol } from '../protocols/types.js';
import type { TranslateContext } from './ir.js';

export function answerContext(
  protocol: Protocol,
  model: string,
  clock: Pick<TranslateContext, 'now' | 'newId'>,
): TranslateContext {
  return {
    caller: protocol,
    upstream: protocol,
    requestedModel: model,
    upstreamModel: model,
    upstreamDialect: protocol === 'messages' ? 'anthropic' : 'openai',
    now: clock.now,
    newId: clock.newId,
    warnings: [],
    toolNames: new Map(),
  };
}
