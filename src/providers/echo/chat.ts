/**
 * Echo replies as OpenAI Chat Completions: the `chat.completion` object and the
 * `chat.completion.chunk` stream (data-only SSE ending in `[DONE]`).
 * @see https://platform.openai.com/docs/api-reference/chat/object, https://platform.openai.com/docs/api-reference/chat-streaming
 * @see src/providers/echo/sdk.test.ts (the official SDKs read what this writes)
 */
import { splitJson, splitWords } from './deltas.js';
import { isRecord } from './conversation.js';
import { estimateOutputTokens, type EchoMeta } from './meta.js';
import type { EchoReply } from './reply.js';
import type { SseEvent } from './sse.js';

export interface ChatToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

export interface ChatUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  readonly prompt_tokens_details: { readonly cached_tokens: number; readonly audio_tokens: number };
  readonly completion_tokens_details: {
    readonly reasoning_tokens: number;
    readonly audio_tokens: number;
    readonly accepted_prediction_tokens: number;
    readonly rejected_prediction_tokens: number;
  };
}

export type ChatFinishReason = 'stop' | 'tool_calls';

export interface ChatCompletion {
  readonly id: string;
  readonly object: 'chat.completion';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly [
    {
      readonly index: 0;
      readonly message: {
        readonly role: 'assistant';
        readonly content: string | null;
        readonly refusal: null;
        readonly annotations: readonly never[];
        readonly tool_calls?: readonly ChatToolCall[];
      };
      readonly logprobs: null;
      readonly finish_reason: ChatFinishReason;
    },
  ];
  readonly usage: ChatUsage;
}

export interface ChatChunkDelta {
  readonly role?: 'assistant';
  readonly content?: string | null;
  readonly refusal?: null;
  readonly tool_calls?: readonly {
    readonly index: number;
    readonly id?: string;
    readonly type?: 'function';
    readonly function: { readonly name?: string; readonly arguments: string };
  }[];
}

export interface ChatCompletionChunk {
  readonly id: string;
  readonly object: 'chat.completion.chunk';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly {
    readonly index: 0;
    readonly delta: ChatChunkDelta;
    readonly logprobs: null;
    readonly finish_reason: ChatFinishReason | null;
  }[];
  /** Present only when `stream_options.include_usage` asked for it: null except on the last chunk. */
  readonly usage?: ChatUsage | null;
}

const finishReason = (reply: EchoReply): ChatFinishReason => (reply.kind === 'tool' ? 'tool_calls' : 'stop');

function chatUsage(reply: EchoReply, meta: EchoMeta): ChatUsage {
  const completion = estimateOutputTokens(reply);
  return {
    prompt_tokens: meta.inputTokens,
    completion_tokens: completion,
    total_tokens: meta.inputTokens + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

export function chatCompletion(reply: EchoReply, _body: unknown, meta: EchoMeta): ChatCompletion {
  const message =
    reply.kind === 'text'
      ? { role: 'assistant', content: reply.text, refusal: null, annotations: [] } as const
      : {
          role: 'assistant',
          content: null,
          refusal: null,
          annotations: [],
          tool_calls: [{ id: meta.ids.call, type: 'function', function: { name: reply.name, arguments: reply.arguments } }],
        } as const;
  return {
    id: meta.ids.response,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(reply) }],
    usage: chatUsage(reply, meta),
  };
}

export const includesUsage = (body: unknown): boolean =>
  isRecord(body) && isRecord(body.stream_options) && body.stream_options.include_usage === true;

export function chatChunks(reply: EchoReply, body: unknown, meta: EchoMeta): ChatCompletionChunk[] {
  const withUsage = includesUsage(body);
  const chunk = (delta: ChatChunkDelta, finish: ChatFinishReason | null = null): ChatCompletionChunk => ({
    id: meta.ids.response,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(withUsage ? { usage: null } : {}),
  });
  const chunks =
    reply.kind === 'text'
      ? [chunk({ role: 'assistant', content: '', refusal: null }), ...splitWords(reply.text).map((content) => chunk({ content }))]
      : [
          // As OpenAI sends it: the role, a null content and the call's first fragment together.
          chunk({
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [{ index: 0, id: meta.ids.call, type: 'function', function: { name: reply.name, arguments: '' } }],
          }),
          ...splitJson(reply.arguments).map((part) => chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] })),
        ];
  chunks.push(chunk({}, finishReason(reply)));
  if (withUsage) chunks.push({ ...chunk({}), choices: [], usage: chatUsage(reply, meta) });
  return chunks;
}

export const chatSse = (reply: EchoReply, body: unknown, meta: EchoMeta): SseEvent[] => [
  ...chatChunks(reply, body, meta).map((c) => ({ data: JSON.stringify(c) })),
  { data: '[DONE]' },
];
