/**
 * Chat usage ⇄ IR usage. Both count cached tokens inside the prompt total and
 * reasoning tokens inside the completion total, so the numbers carry over as is.
 * @see README.md, "Translation" › "What maps to what"
 */
import type { Usage } from '../../../translate/ir.js';
import { isObject, num, obj } from './read.js';

/** A Chat `usage` object → IR; a missing or malformed one reads as zeros. */
export function usageFromChat(usage: unknown): Usage {
  if (!isObject(usage)) return { inputTokens: 0, outputTokens: 0 };
  const prompt = obj(usage.prompt_tokens_details);
  const completion = obj(usage.completion_tokens_details);
  const cacheRead = num(prompt.cached_tokens);
  // 6.49 types it under prompt_tokens_details; some compatible servers put it at the top.
  const cacheWrite = num(prompt.cache_write_tokens) ?? num(usage.cache_write_tokens);
  const reasoning = num(completion.reasoning_tokens);
  return {
    inputTokens: num(usage.prompt_tokens) ?? 0,
    outputTokens: num(usage.completion_tokens) ?? 0,
    ...(cacheRead !== undefined ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cacheWriteTokens: cacheWrite } : {}),
    ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
  };
}

/** IR usage → the Chat `usage` object, details always present (clients read them without checks). */
export function usageToChat(usage: Usage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: {
      cached_tokens: usage.cacheReadTokens ?? 0,
      ...(usage.cacheWriteTokens !== undefined ? { cache_write_tokens: usage.cacheWriteTokens } : {}),
    },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
}
