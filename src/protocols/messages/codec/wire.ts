/**
 * The Anthropic response shapes this codec emits (checked against the SDK's
 * `Message` and stream event types in `sdk-types.test-d.ts`). A field the API
 * leaves out when it has no value is left out here too, not written as `null`:
 * strict clients (the Vercel AI SDK) reject a `null` the API does not send.
 */
import { eventFrame } from '../../../sse/format.js';
import type { AnthropicStopReason } from './stop-reasons.js';
import type { MessageUsage } from './usage.js';

/** No `citations`: the API writes them only on a text block that cites something. */
export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
}

export interface ThinkingBlock {
  readonly type: 'thinking';
  readonly thinking: string;
  readonly signature: string;
}

export interface RedactedThinkingBlock {
  readonly type: 'redacted_thinking';
  readonly data: string;
}

export interface ToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly caller: { readonly type: 'direct' };
}

export type ContentBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock;

export interface Message {
  readonly id: string;
  readonly type: 'message';
  readonly role: 'assistant';
  readonly model: string;
  readonly content: readonly ContentBlock[];
  readonly stop_reason: AnthropicStopReason | null;
  readonly stop_sequence: string | null;
  readonly stop_details: null;
  readonly container: null;
  readonly diagnostics: null;
  readonly usage: MessageUsage;
}

/** The message head shared by the JSON answer and `message_start`. */
export const messageHead = (id: string, model: string) => ({ id, type: 'message', role: 'assistant', model }) as const;

/** Stream events, one `event:` line each, named by their `type`. */
export type StreamEvent =
  | { readonly type: 'message_start'; readonly message: Message }
  | { readonly type: 'ping' }
  | { readonly type: 'content_block_start'; readonly index: number; readonly content_block: ContentBlock }
  | { readonly type: 'content_block_delta'; readonly index: number; readonly delta: BlockDelta }
  | { readonly type: 'content_block_stop'; readonly index: number }
  | { readonly type: 'message_delta'; readonly delta: MessageDelta; readonly usage: DeltaUsage }
  | { readonly type: 'message_stop' }
  | { readonly type: 'error'; readonly error: { readonly type: string; readonly message: string } };

export type BlockDelta =
  | { readonly type: 'text_delta'; readonly text: string }
  | { readonly type: 'thinking_delta'; readonly thinking: string }
  | { readonly type: 'signature_delta'; readonly signature: string }
  | { readonly type: 'input_json_delta'; readonly partial_json: string };

export interface MessageDelta {
  readonly stop_reason: AnthropicStopReason;
  readonly stop_sequence: string | null;
  readonly stop_details: null;
  readonly container: null;
}

export interface DeltaUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly output_tokens_details: { readonly thinking_tokens: number } | null;
  readonly server_tool_use: null;
}

/** One SSE message: the `event:` name equals `data.type` (SDKs drop unnamed messages). */
export const sse = (event: StreamEvent): string => eventFrame(event.type, event);
