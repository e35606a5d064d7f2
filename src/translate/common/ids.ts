import type { TranslateContext } from '../ir.js';

/**
 * A response id in the caller protocol's own style (`chatcmpl-…`, `resp_…`, `msg_…`), keeping the
 * upstream's id inside it so the two can be matched in logs; a fresh one when the upstream gave none.
 */
export function callerResponseId(prefix: string, id: string, ctx: TranslateContext): string {
  if (id === '') return ctx.newId(prefix);
  const kept = id.startsWith(prefix) ? id : `${prefix}${id}`;
  // A stored answer is found by its id, and some servers repeat theirs (a small random number): it gets a fresh part.
  return ctx.stored ? ctx.newId(`${kept}_`) : kept;
}
