/**
 * Token counts, read once per protocol. Each protocol reads its own `usage` objects into
 * `UsageCounts` in one function (`<p>/usage.ts`); the log and the translation IR each take
 * what they need from those counts here, so the stream watcher and the codec can never
 * disagree about a field.
 */
import type * as Ir from '../translate/ir.js';
import { dropUndefined } from './shallow.js';
import type { Usage } from './types.js';

/** What one usage object states, in the IR's terms (input includes cache reads and writes); a count it leaves out stays undefined, for a later stream event to bring. */
export type UsageCounts = { [K in keyof Ir.Usage]?: Ir.Usage[K] };

/**
 * The first count stated as more than zero, else the first stated at all. For a figure some servers
 * state twice, in OpenAI's field and their own, and some state as a placeholder zero in one of them.
 */
export function firstCount(...counts: readonly (number | undefined)[]): number | undefined {
  return counts.find((c) => c !== undefined && c > 0) ?? counts.find((c) => c !== undefined);
}

/** For the log: a cache count of zero says nothing and is left out. */
export function logUsage(c: UsageCounts): Usage {
  return dropUndefined({
    inputTokens: c.inputTokens,
    outputTokens: c.outputTokens,
    cachedTokens: c.cacheReadTokens || undefined,
    cacheWriteTokens: c.cacheWriteTokens || undefined,
    cacheWrite1hTokens: c.cacheWrite1hTokens || undefined,
  });
}

/**
 * For translation: totals left out read as zero (the IR needs both). Details of zero are left out:
 * OpenAI and Anthropic state them in every answer, so a zero says nothing the IR's absence does not.
 */
export function irUsage(c: UsageCounts): Ir.Usage {
  return {
    inputTokens: c.inputTokens ?? 0,
    outputTokens: c.outputTokens ?? 0,
    ...(c.cacheReadTokens ? { cacheReadTokens: c.cacheReadTokens } : {}),
    ...(c.cacheWriteTokens ? { cacheWriteTokens: c.cacheWriteTokens } : {}),
    ...(c.reasoningTokens ? { reasoningTokens: c.reasoningTokens } : {}),
  };
}
