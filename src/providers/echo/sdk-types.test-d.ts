/**
 * Type drift: echo answers with the caller protocol's codec, so what it emits is what these
 * builders return; each must fit the official SDK types, so a field the SDKs rename or retype
 * fails `vitest --typecheck` here instead of surprising a client.
 */
import type OpenAI from 'openai';
import { describe, expectTypeOf, it } from 'vitest';
import type { ApiMessage } from '../../../test/helpers/anthropic-api-types.js';
import type { Mutable } from '../../../test/helpers/mutable.js';
import type { buildCompletion } from '../../protocols/chat/codec/encode-response.js';
import type { usageToChat } from '../../protocols/chat/codec/usage.js';
import type { buildMessage } from '../../protocols/messages/codec/encode-response.js';

describe('emitted shapes fit the SDK types', () => {
  it('Chat Completions: the completion and its usage', () => {
    expectTypeOf<Mutable<ReturnType<typeof buildCompletion>>>().toExtend<OpenAI.Chat.ChatCompletion>();
    expectTypeOf<Mutable<ReturnType<typeof usageToChat>>>().toExtend<OpenAI.CompletionUsage>();
  });

  it('Messages: the message', () => {
    expectTypeOf<Mutable<ReturnType<typeof buildMessage>>>().toExtend<ApiMessage>();
  });
});
