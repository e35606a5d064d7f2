import type { TranslateContext } from '../ir.js';

/**
 * Phrases kept per request. Many name something the caller sent (a part's `type`), so a hostile
 * request could make each of its blocks a new phrase: the list, the check for repeats and the
 * response header built from it stay small whatever arrives.
 */
const MAX_WARNINGS = 32;
/** Longest phrase kept; longer ones are cut (they end up in a response header). */
const MAX_PHRASE = 100;
const MORE = 'more';

/** Records a dropped or approximated feature, once per request (the list ends up in a response header). */
export function warn(ctx: Pick<TranslateContext, 'warnings'>, phrase: string): void {
  const warnings = ctx.warnings;
  if (warnings.length >= MAX_WARNINGS) return;
  const kept = phrase.length > MAX_PHRASE ? `${phrase.slice(0, MAX_PHRASE - 3)}...` : phrase;
  if (warnings.includes(kept)) return;
  warnings.push(warnings.length === MAX_WARNINGS - 1 ? MORE : kept);
}
