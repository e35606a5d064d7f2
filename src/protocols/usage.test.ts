import { describe, expect, it } from 'vitest';
import { chatUsage } from './chat/usage.js';
import { anthropicUsage, createMessagesWatch } from './messages/usage.js';
import { responsesUsage } from './responses/usage.js';

describe('usage for the log and the inspector', () => {
  it("adds Anthropic's cache reads and writes back into the input total and reports both", () => {
    expect(anthropicUsage({ input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 5, cache_creation_input_tokens: 2 })).toEqual({
      inputTokens: 17,
      outputTokens: 3,
      cachedTokens: 5,
      cacheWriteTokens: 2,
    });
    expect(anthropicUsage({ input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 })).toEqual({ inputTokens: 10, outputTokens: 3 });
  });

  it('reads cache writes where OpenAI-protocol answers carry them (the gateway translating, OpenRouter-style servers)', () => {
    expect(responsesUsage({ usage: { input_tokens: 100, output_tokens: 5, input_tokens_details: { cached_tokens: 60, cache_write_tokens: 30 } } })).toEqual({
      inputTokens: 100,
      outputTokens: 5,
      cachedTokens: 60,
      cacheWriteTokens: 30,
    });
    expect(chatUsage({ usage: { prompt_tokens: 100, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 30 } } })).toEqual({
      inputTokens: 100,
      outputTokens: 5,
      cachedTokens: 60,
      cacheWriteTokens: 30,
    });
    // OpenAI's own answers: no write count, and none invented.
    expect(chatUsage({ usage: { prompt_tokens: 11, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 4 } } })).toEqual({ inputTokens: 11, outputTokens: 3, cachedTokens: 4 });
  });

  it("follows a Messages stream's cumulative counts: a message_delta that restates the input keeps message_start's cache counts in the total", () => {
    const watch = createMessagesWatch();
    const start = { type: 'message_start', message: { usage: { input_tokens: 10, cache_read_input_tokens: 5, cache_creation_input_tokens: 2, output_tokens: 1 } } };
    watch.onEvent({ event: 'message_start', data: JSON.stringify(start) });
    expect(watch.usage).toEqual({ inputTokens: 17, outputTokens: 1, cachedTokens: 5, cacheWriteTokens: 2 });
    watch.onEvent({ event: 'message_delta', data: JSON.stringify({ type: 'message_delta', usage: { input_tokens: 10, output_tokens: 42 } }) });
    expect(watch.usage).toEqual({ inputTokens: 17, outputTokens: 42, cachedTokens: 5, cacheWriteTokens: 2 });
  });
});
