/**
 * The context for a codec working within one protocol, where caller and "upstream" are the same
 * and nothing is renamed: encoding an answer no upstream gave (the echo provider), or decoding a
 * recorded stream to read it (replay).
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
