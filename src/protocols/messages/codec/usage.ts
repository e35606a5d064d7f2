/**
 * Usage between the IR (OpenAI convention: input INCLUDES cache reads and writes)
 * and Anthropic (`input_tokens` EXCLUDES them; total = input + creation + read).
 * @see README.md, "Translation" › "What maps to what"
 */
import { isObject } from '../../shallow.js';
import type { Usage } from '../../../translate/ir.js';
import { num } from './read.js';

/** The counts an Anthropic `usage` object carries (message JSON, `message_start`, `message_delta`). */
export interface AnthropicCounts {
  input?: number;
  output?: number;
  cacheWrite?: number;
  cacheRead?: number;
  thinking?: number;
}

/** Reads the counts present in `usage` (absent and null stay undefined, so later events can override). */
export function readCounts(usage: unknown): AnthropicCounts {
  if (!isObject(usage)) return {};
  const counts: AnthropicCounts = {};
  const input = num(usage.input_tokens);
  const output = num(usage.output_tokens);
  const cacheWrite = num(usage.cache_creation_input_tokens);
  const cacheRead = num(usage.cache_read_input_tokens);
  const thinking = isObject(usage.output_tokens_details) ? num(usage.output_tokens_details.thinking_tokens) : undefined;
  if (input !== undefined) counts.input = input;
  if (output !== undefined) counts.output = output;
  if (cacheWrite !== undefined) counts.cacheWrite = cacheWrite;
  if (cacheRead !== undefined) counts.cacheRead = cacheRead;
  if (thinking !== undefined) counts.thinking = thinking;
  return counts;
}

/** Later counts override earlier ones (Anthropic's `message_delta` usage is cumulative, not incremental). */
export const mergeCounts = (base: AnthropicCounts, next: AnthropicCounts): AnthropicCounts => ({ ...base, ...next });

/** Anthropic counts → IR usage. Zero cache counts are left out, as the IR treats them as optional detail. */
export function countsToUsage(c: AnthropicCounts): Usage {
  const cacheRead = c.cacheRead ?? 0;
  const cacheWrite = c.cacheWrite ?? 0;
  return {
    inputTokens: (c.input ?? 0) + cacheRead + cacheWrite,
    outputTokens: c.output ?? 0,
    ...(cacheRead > 0 ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite > 0 ? { cacheWriteTokens: cacheWrite } : {}),
    ...(c.thinking !== undefined ? { reasoningTokens: c.thinking } : {}),
  };
}

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
