/**
 * Usage between the IR (OpenAI convention: input INCLUDES cache reads and writes)
 * and Anthropic (`input_tokens` EXCLUDES them; total = input + creation + read).
 * @see README.md, "Translation" › "What maps to what"
 */
import type { Usage } from '../../../translate/ir.js';
import { irUsage } from '../../usage.js';
import { type AnthropicCounts, messagesUsageCounts } from '../usage.js';

export { type AnthropicCounts, mergeCounts, readCounts } from '../usage.js';

/** Anthropic counts → IR usage. Zero cache counts are left out, as the IR treats them as optional detail. */
export const countsToUsage = (c: AnthropicCounts): Usage => irUsage(messagesUsageCounts(c));

/** The part of IR usage known at stream start. */
export function countsToPartialUsage(c: AnthropicCounts): Partial<Usage> {
  const usage = countsToUsage(c);
  return {
    inputTokens: usage.inputTokens,
    ...(usage.cacheReadTokens !== undefined ? { cacheReadTokens: usage.cacheReadTokens } : {}),
    ...(usage.cacheWriteTokens !== undefined ? { cacheWriteTokens: usage.cacheWriteTokens } : {}),
  };
}

/** The Anthropic `usage` object for a message (JSON response, `message_start`). */
export interface MessageUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation: null;
  readonly output_tokens_details: { readonly thinking_tokens: number } | null;
  readonly server_tool_use: null;
  readonly service_tier: null;
  readonly inference_geo: null;
  readonly speed: null;
}

/** The token fields shared by the message usage and the `message_delta` usage. */
export function usageCounts(usage: Partial<Usage>) {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage.inputTokens ?? 0) - cacheRead - cacheWrite),
    output_tokens: usage.outputTokens ?? 0,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    output_tokens_details: usage.reasoningTokens !== undefined ? { thinking_tokens: usage.reasoningTokens } : null,
  };
}

export const encodeUsage = (usage: Partial<Usage>): MessageUsage => ({
  ...usageCounts(usage),
  cache_creation: null,
  server_tool_use: null,
  service_tier: null,
  inference_geo: null,
  speed: null,
});
