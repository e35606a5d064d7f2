/**
 * Gemini `usageMetadata` ⇄ IR usage. `promptTokenCount` includes the cached part
 * (`cachedContentTokenCount`), as the IR's input does; `candidatesTokenCount` leaves out the
 * thinking (`thoughtsTokenCount`), which the IR's output includes.
 */
import type * as Ir from '../../../translate/ir.js';
import { isObject, num } from './read.js';
import type { UsageMetadata } from './wire.js';

export function decodeUsage(value: unknown): Ir.Usage {
  const u = isObject(value) ? value : {};
  const thoughts = num(u.thoughtsTokenCount) ?? 0;
  const cached = num(u.cachedContentTokenCount) ?? 0;
  return {
    // Tokens of tool-use prompts (server-side tools) are input the model read too.
    inputTokens: (num(u.promptTokenCount) ?? 0) + (num(u.toolUsePromptTokenCount) ?? 0),
    outputTokens: (num(u.candidatesTokenCount) ?? 0) + thoughts,
    ...(cached > 0 ? { cacheReadTokens: cached } : {}),
    ...(thoughts > 0 ? { reasoningTokens: thoughts } : {}),
  };
}

export function encodeUsage(usage: Ir.Usage): UsageMetadata {
  const thoughts = usage.reasoningTokens ?? 0;
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: Math.max(0, usage.outputTokens - thoughts),
    totalTokenCount: usage.inputTokens + usage.outputTokens,
    ...(usage.cacheReadTokens ? { cachedContentTokenCount: usage.cacheReadTokens } : {}),
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
  };
}
