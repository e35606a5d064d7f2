/** A TranslateContext for codec tests: a fixed clock, ids `<prefix>test`, and the pair and models given. */
import type { TranslateContext } from '#src/translate/ir.js';

export function translateContext(
  fields: Pick<TranslateContext, 'caller' | 'upstream' | 'requestedModel' | 'upstreamModel' | 'upstreamDialect'> & Partial<TranslateContext>,
): TranslateContext {
  return {
    now: () => 1_700_000_000_000,
    newId: (p) => `${p}test`,
    warnings: [],
    toolNames: new Map(),
    ...fields,
  };
}
