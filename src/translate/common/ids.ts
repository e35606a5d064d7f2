import type { TranslateContext } from '../ir.js';

/**
 * A response id in the caller protocol's own style (`chatcmpl-…`, `resp_…`, `msg_…`), keeping the
 * upstream's id inside it so the two can be matched in logs; a fresh one when the upstream gave none.
 */
export function callerResponseId(prefix: string, id: string, ctx: TranslateContext): string {
  if (id === '') return ctx.newId(prefix);
  return id.startsWith(prefix) ? id : `${prefix}${id}`;
}
