/**
 * Type drift: what echo emits must fit the official SDK types, so a field the SDKs rename or retype
 * fails `vitest --typecheck` here instead of surprising a client.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { describe, expectTypeOf, it } from 'vitest';
import type { Mutable } from '../../../test/helpers/mutable.js';
import type { chatChunks, chatCompletion } from './chat.js';
import type { messagesJson } from './messages.js';
import type { ResponseObject } from './responses.js';

describe('emitted shapes fit the SDK types', () => {
  it('Chat Completions: completion and chunks', () => {
    expectTypeOf<Mutable<ReturnType<typeof chatCompletion>>>().toExtend<OpenAI.Chat.ChatCompletion>();
    expectTypeOf<Mutable<ReturnType<typeof chatChunks>>>().toExtend<OpenAI.Chat.ChatCompletionChunk[]>();
  });

  it('Responses: output items and usage', () => {
    expectTypeOf<Mutable<ResponseObject['output']>>().toExtend<OpenAI.Responses.ResponseOutputItem[]>();
    expectTypeOf<Mutable<ResponseObject['usage']>>().toExtend<OpenAI.Responses.ResponseUsage | null>();
  });

  it('Messages: the message', () => {
    expectTypeOf<Mutable<ReturnType<typeof messagesJson>>>().toExtend<Anthropic.Message>();
  });
});
