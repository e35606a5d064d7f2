/**
 * Responses status ⇄ IR stop reason, and usage. A Response has no stop reason:
 * `completed` with function calls means "tool calls", `incomplete` says why in
 * `incomplete_details.reason`. `input_tokens` already includes cached tokens,
 * as the IR counts them.
 * @see README.md, "Translation" › "What maps to what"
 */
import { isObject, type Json } from '../../shallow.js';
import type { StopReason, Usage } from '../../../translate/ir.js';
import { irUsage } from '../../usage.js';
import { responsesUsageCounts } from '../usage.js';
import { str } from './read.js';

const INCOMPLETE = {
  max_output_tokens: 'max_tokens',
  content_filter: 'content_filter',
} as const satisfies Record<string, StopReason>;

/** The status, `incomplete_details` and whether any tool was called → the IR stop reason. */
export function stopReasonOf(response: Json, calledTools: boolean): StopReason {
  if (response.status === 'incomplete') {
    const reason = str(isObject(response.incomplete_details) ? response.incomplete_details.reason : undefined);
    // An incomplete answer without a known reason ran out of room in some way.
    return reason !== undefined && Object.hasOwn(INCOMPLETE, reason) ? INCOMPLETE[reason as keyof typeof INCOMPLETE] : 'max_tokens';
  }
  return calledTools ? 'tool_calls' : 'end';
}

export type ResponseStatus = 'completed' | 'incomplete';

/** IR stop reason → the Response's `status` and `incomplete_details`. Stop sequences, pauses and refusals end normally. */
export function statusOf(stopReason: StopReason): { status: ResponseStatus; incomplete_details: { reason: string } | null } {
  switch (stopReason) {
    case 'max_tokens':
    case 'context_window':
      return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
    case 'content_filter':
      return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
    case 'end':
    case 'tool_calls':
    case 'stop_sequence':
    case 'refusal':
    case 'pause':
      return { status: 'completed', incomplete_details: null };
  }
}

export const decodeUsage = (usage: unknown): Usage => irUsage(responsesUsageCounts(usage));

export function encodeUsage(usage: Usage): Json {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens ?? 0, cache_write_tokens: usage.cacheWriteTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}
