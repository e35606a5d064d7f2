/**
 * Anthropic `stop_reason` ⇄ IR stop reasons.
 * @see README.md, "Translation" › "What maps to what"
 */
import type { StopReason } from '../../../translate/ir.js';

export type AnthropicStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

const fromAnthropic = {
  end_turn: 'end',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  tool_use: 'tool_calls',
  pause_turn: 'pause',
  refusal: 'refusal',
  model_context_window_exceeded: 'context_window',
} as const satisfies Record<AnthropicStopReason, StopReason>;

/** `content_filter` has no Anthropic twin; `refusal` is the nearest (a classifier stopped the output). */
const toAnthropic = {
  end: 'end_turn',
  max_tokens: 'max_tokens',
  tool_calls: 'tool_use',
  stop_sequence: 'stop_sequence',
  content_filter: 'refusal',
  refusal: 'refusal',
  pause: 'pause_turn',
  context_window: 'model_context_window_exceeded',
} as const satisfies Record<StopReason, AnthropicStopReason>;

/** An unknown or missing reason (a newer API value) reads as a natural end. */
export const decodeStopReason = (reason: unknown): StopReason =>
  typeof reason === 'string' && Object.hasOwn(fromAnthropic, reason) ? fromAnthropic[reason as AnthropicStopReason] : 'end';

export interface StopFacts {
  readonly stopReason: StopReason;
  /** The content had tool calls (some OpenAI-compatible servers say `stop` anyway). */
  readonly hasToolCalls: boolean;
  /** The content had a refusal part. */
  readonly hasRefusal: boolean;
}

/** The Anthropic reason for an IR finish: a natural end with tool calls or a refusal says so. */
export function encodeStopReason({ stopReason, hasToolCalls, hasRefusal }: StopFacts): AnthropicStopReason {
  if (stopReason === 'end' && hasRefusal) return 'refusal';
  if (stopReason === 'end' && hasToolCalls) return 'tool_use';
  return toAnthropic[stopReason];
}
