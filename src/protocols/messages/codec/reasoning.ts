/**
 * Reasoning effort ⇄ Anthropic extended-thinking budgets. The mapping is a
 * policy choice (README.md, "Translation"): these budgets are what "low/medium/high"
 * roughly buy on Claude models, and `budget_tokens` must be at least 1024 and
 * below `max_tokens`.
 */
import type { ReasoningEffort } from '../../../translate/ir.js';

/** The smallest budget Anthropic accepts. */
export const MIN_THINKING_BUDGET = 1024;

/** `thinking.budget_tokens` sent for each IR effort when the caller gave no budget. */
export const THINKING_BUDGETS = {
  minimal: 1024,
  low: 1024,
  medium: 4096,
  high: 16384,
  xhigh: 32768,
  max: 32768,
} as const satisfies Record<Exclude<ReasoningEffort, 'none'>, number>;

/** The effort a caller's budget stands for, for targets that speak in efforts. */
export function effortForBudget(budget: number): ReasoningEffort {
  if (budget <= 2048) return 'low';
  if (budget <= 8192) return 'medium';
  return 'high';
}

const EFFORTS: readonly string[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] satisfies ReasoningEffort[];
export const isEffort = (v: unknown): v is ReasoningEffort => typeof v === 'string' && EFFORTS.includes(v);
