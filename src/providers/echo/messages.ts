/**
 * Echo replies as Anthropic Messages: the `message` object, the count_tokens answer, and
 * the named-event stream (`message_start` … `message_stop`).
 * @see https://docs.anthropic.com/en/api/messages, https://docs.anthropic.com/en/docs/build-with-claude/streaming, https://docs.anthropic.com/en/api/messages-count-tokens
 * @see src/providers/echo/sdk.test.ts (the official SDKs read what this writes)
 */
import { splitJson, splitWords } from './deltas.js';
import { estimateInputTokens, estimateOutputTokens, type EchoMeta } from './meta.js';
import type { EchoReply } from './reply.js';
import { namedEvent, type SseEvent } from './sse.js';

export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
  readonly citations: null;
}

export interface ToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly caller: { readonly type: 'direct' };
}

export type StopReason = 'end_turn' | 'tool_use';

export interface MessageUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  readonly cache_creation: { readonly ephemeral_5m_input_tokens: number; readonly ephemeral_1h_input_tokens: number };
  readonly output_tokens_details: null;
  readonly server_tool_use: null;
  readonly service_tier: 'standard';
  readonly inference_geo: null;
  readonly speed: null;
}

export interface Message {
  readonly id: string;
  readonly type: 'message';
  readonly role: 'assistant';
  readonly model: string;
  readonly content: readonly (TextBlock | ToolUseBlock)[];
  readonly stop_reason: StopReason | null;
  readonly stop_sequence: null;
  readonly stop_details: null;
  readonly container: null;
  readonly diagnostics: null;
  readonly usage: MessageUsage;
}

const stopReason = (reply: EchoReply): StopReason => (reply.kind === 'tool' ? 'tool_use' : 'end_turn');

function usageOf(meta: EchoMeta, outputTokens: number): MessageUsage {
  return {
    input_tokens: meta.inputTokens,
    output_tokens: outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: 'standard',
    inference_geo: null,
    speed: null,
  };
}

function message(meta: EchoMeta, content: Message['content'], stop: StopReason | null, outputTokens: number): Message {
  return {
    id: meta.ids.response,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: usageOf(meta, outputTokens),
  };
}

const block = (reply: EchoReply, meta: EchoMeta): TextBlock | ToolUseBlock =>
  reply.kind === 'text'
    ? { type: 'text', text: reply.text, citations: null }
    : { type: 'tool_use', id: meta.ids.call, name: reply.name, input: reply.input, caller: { type: 'direct' } };

export const messagesJson = (reply: EchoReply, _body: unknown, meta: EchoMeta): Message =>
  message(meta, [block(reply, meta)], stopReason(reply), estimateOutputTokens(reply));

/** The count_tokens answer: the same estimate a create call reports as input usage. */
export const countTokensJson = (body: unknown): { input_tokens: number } => ({ input_tokens: estimateInputTokens(body) });

export interface MessagesEvent {
  readonly type: string;
  readonly [field: string]: unknown;
}

export function messagesEvents(reply: EchoReply, _body: unknown, meta: EchoMeta): MessagesEvent[] {
  const index = 0;
  const start =
    reply.kind === 'text'
      ? { type: 'text', text: '', citations: null }
      : { type: 'tool_use', id: meta.ids.call, name: reply.name, input: {}, caller: { type: 'direct' } };
  const deltas =
    reply.kind === 'text'
      ? splitWords(reply.text).map((text) => ({ type: 'text_delta', text }))
      : // The API's first input_json_delta is often empty; clients must concatenate the pieces.
        ['', ...splitJson(reply.arguments)].map((partial_json) => ({ type: 'input_json_delta', partial_json }));
  const outputTokens = estimateOutputTokens(reply);
  return [
    // Input usage is known up front; output starts at 1 as the API reports it.
    { type: 'message_start', message: message(meta, [], null, 1) },
    { type: 'ping' },
    { type: 'content_block_start', index, content_block: start },
    ...deltas.map((delta) => ({ type: 'content_block_delta', index, delta })),
    { type: 'content_block_stop', index },
    {
      type: 'message_delta',
      delta: { stop_reason: stopReason(reply), stop_sequence: null, stop_details: null, container: null },
      // Cumulative totals, not increments.
      usage: {
        input_tokens: meta.inputTokens,
        output_tokens: outputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens_details: null,
        server_tool_use: null,
      },
    },
    { type: 'message_stop' },
  ];
}

export const messagesSse = (reply: EchoReply, body: unknown, meta: EchoMeta): SseEvent[] =>
  messagesEvents(reply, body, meta).map(namedEvent);
