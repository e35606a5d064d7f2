/**
 * Type-level drift check: what echo emits must be assignable to the official SDK types
 * (checked by `tsc`; the runtime assertions only keep vitest from reporting an empty file).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { chatChunks, chatCompletion } from './chat.js';
import { messagesJson } from './messages.js';
import type { EchoMeta } from './meta.js';
import type { EchoReply } from './reply.js';
import { responsesJson, type OutputItem, type ResponseUsage } from './responses.js';

/** Our wire types are readonly; the SDK's are mutable. The shapes are what is compared. */
type Writable<T> = T extends readonly (infer U)[]
  ? Writable<U>[]
  : T extends object
    ? { -readonly [K in keyof T]: Writable<T[K]> }
    : T;
const writable = <T>(value: T): Writable<T> => value as Writable<T>;

const meta: EchoMeta = { model: 'm', created: 1, inputTokens: 1, ids: { response: 'r', message: 'm', call: 'c', callItem: 'f' } };
const replies: EchoReply[] = [
  { kind: 'text', text: 'hi' },
  { kind: 'tool', name: 't', namespace: 'ns', input: { a: 1 }, arguments: '{"a":1}' },
];

describe('emitted shapes fit the SDK types', () => {
  it.each(replies)('%o', (reply) => {
    const completion: OpenAI.Chat.ChatCompletion = writable(chatCompletion(reply, {}, meta));
    const chunks: OpenAI.Chat.ChatCompletionChunk[] = writable(chatChunks(reply, { stream_options: { include_usage: true } }, meta));
    const response = responsesJson(reply, {}, meta);
    const output: OpenAI.Responses.ResponseOutputItem[] = writable<readonly OutputItem[]>(response.output);
    const usage: OpenAI.Responses.ResponseUsage | null = writable<ResponseUsage | null>(response.usage);
    const message: Anthropic.Message = writable(messagesJson(reply, {}, meta));
    expect([completion, chunks, output, usage, message].every((v) => v !== undefined)).toBe(true);
  });
});
