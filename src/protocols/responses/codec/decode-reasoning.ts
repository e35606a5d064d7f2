/**
 * Responses `reasoning` request settings → IR.
 */
import { isObject } from '../../shallow.js';
import type { ReasoningEffort, ReasoningRequest } from '../../../translate/ir.js';
import { str } from './read.js';

const EFFORTS = {
  none: true,
  minimal: true,
  low: true,
  medium: true,
  high: true,
  xhigh: true,
  max: true,
} as const satisfies Record<ReasoningEffort, true>;

export const readEffort = (v: unknown): ReasoningEffort | undefined =>
  typeof v === 'string' && Object.hasOwn(EFFORTS, v) ? (v as ReasoningEffort) : undefined;

/** `reasoning: {effort, summary}` (and Codex's `configuration_update` effort, which wins) → IR. */
export function decodeReasoning(reasoning: unknown, laterEffort: ReasoningEffort | undefined): ReasoningRequest | undefined {
  const r = isObject(reasoning) ? reasoning : {};
  const effort = laterEffort ?? readEffort(r.effort);
  // `generate_summary` is the deprecated name of `summary`.
  const summary = str(r.summary) ?? str(r.generate_summary);
  if (effort === undefined && summary === undefined) return undefined;
  return { ...(effort !== undefined ? { effort } : {}), ...(summary !== undefined ? { summary } : {}) };
}
