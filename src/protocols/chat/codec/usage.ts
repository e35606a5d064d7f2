/**
 * Chat usage ⇄ IR usage. Both count cached tokens inside the prompt total and
 * reasoning tokens inside the completion total, so the numbers carry over as is.
 * @see README.md, "Translation" › "What maps to what"
 */
import type { Usage } from '../../../translate/ir.js';
import { irUsage } from '../../usage.js';
import { chatUsageCounts } from '../usage.js';

export { chatUsageObject } from '../usage.js';

/** A Chat `usage` object → IR; a missing or malformed one reads as zeros. */
export const usageFromChat = (usage: unknown): Usage => irUsage(chatUsageCounts(usage));

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
