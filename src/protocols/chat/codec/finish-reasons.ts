/**
 * Chat `finish_reason` ⇄ IR stop reason.
 * @see README.md, "Translation" › "What maps to what"
 */
import type { StopReason } from '../../../translate/ir.js';

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

const fromChat = {
  stop: 'end',
  length: 'max_tokens',
  tool_calls: 'tool_calls',
  // The deprecated single-function form still comes from some older servers.
  function_call: 'tool_calls',
  content_filter: 'content_filter',
} as const satisfies Record<FinishReason, StopReason>;

/**
 * `pause` (Anthropic `pause_turn`) has no Chat form: `stop` is the closest, and
 * the caller simply sees a turn that ended (lossy).
 */
const toChat = {
  end: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  context_window: 'length',
  tool_calls: 'tool_calls',
  content_filter: 'content_filter',
  refusal: 'content_filter',
  pause: 'stop',
} as const satisfies Record<StopReason, FinishReason>;

/**
 * An upstream's `finish_reason` → IR. Servers that say `stop` although the
 * message carries tool calls (some local ones do) are read as `tool_calls`, so
 * the caller's agent loop runs the tools; unknown reasons read as a natural end.
 */
export function stopReasonFromChat(reason: unknown, hasToolCalls: boolean): StopReason {
  const mapped: StopReason = typeof reason === 'string' && reason in fromChat ? fromChat[reason as FinishReason] : 'end';
  return mapped === 'end' && hasToolCalls ? 'tool_calls' : mapped;
}

export const finishReasonToChat = (reason: StopReason): FinishReason => toChat[reason];
