import type { TranslateContext } from '../ir.js';

/** Records a dropped or approximated feature, once per request (the list ends up in a response header). */
export function warn(ctx: TranslateContext, phrase: string): void {
  if (!ctx.warnings.includes(phrase)) ctx.warnings.push(phrase);
}
