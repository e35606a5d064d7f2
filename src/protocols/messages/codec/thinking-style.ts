/**
 * How a translated request asks a Claude model to think. Claude 4.6 models take
 * `thinking: {type: "adaptive"}` with `output_config.effort` and deprecate fixed budgets;
 * later ones (Opus 4.7 on, the Claude 5 families) refuse `type: "enabled"` with
 * `budget_tokens`; earlier ones know only that, and refuse `adaptive`. So the style follows the
 * model's version unless the model's configuration (`thinking`) says otherwise, and a name
 * without a recognisable version keeps the form every model before 4.7 takes.
 */
import type { ReasoningEffort } from '../../../translate/ir.js';

export type ThinkingStyle = 'adaptive' | 'enabled';

/**
 * The version in a Claude model id, in every spelling in use: `claude-opus-4-6`,
 * `claude-sonnet-4-20250514` (4.0: the date is no minor version), `claude-3-7-sonnet-20250219`,
 * `anthropic.claude-opus-4-6-v1:0`, `claude-opus-4.7`.
 */
const VERSION = /claude-(?:[a-z]+-)?(\d{1,2})(?:[.-](\d{1,2})(?!\d))?/i;

export function thinkingStyleFor(model: string): ThinkingStyle {
  const match = VERSION.exec(model);
  if (!match) return 'enabled';
  const major = Number(match[1]);
  const minor = Number(match[2] ?? 0);
  return major > 4 || (major === 4 && minor >= 6) ? 'adaptive' : 'enabled';
}

/** `output_config.effort` for an IR effort: Anthropic's levels are low, medium, high and max. */
export function anthropicEffort(effort: Exclude<ReasoningEffort, 'none'>): 'low' | 'medium' | 'high' | 'max' {
  switch (effort) {
    case 'minimal':
    case 'low':
      return 'low';
    case 'medium':
      return 'medium';
    case 'high':
    case 'xhigh':
      return 'high';
    case 'max':
      return 'max';
  }
}
