import { describe, expect, it } from 'vitest';
import { chatUsage, createChatWatch } from './chat/usage.js';
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

  it.each([
    [
      'DeepSeek: hits are reads, hits plus misses the input when prompt_tokens is missing',
      { completion_tokens: 4, prompt_cache_hit_tokens: 64, prompt_cache_miss_tokens: 36 },
      { inputTokens: 100, outputTokens: 4, cachedTokens: 64 },
    ],
    [
      "a placeholder zero in OpenAI's field does not hide the server's own count",
      { prompt_tokens: 100, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 0 }, prompt_cache_hit_tokens: 64 },
      { inputTokens: 100, outputTokens: 4, cachedTokens: 64 },
    ],
    ["Kimi's cached_tokens at the top", { prompt_tokens: 100, completion_tokens: 4, cached_tokens: 80 }, { inputTokens: 100, outputTokens: 4, cachedTokens: 80 }],
    [
      "a proxy passing Anthropic's write count on, and OpenRouter's cost not read as tokens",
      { prompt_tokens: 100, completion_tokens: 4, cache_creation_input_tokens: 30, cost: 12 },
      { inputTokens: 100, outputTokens: 4, cacheWriteTokens: 30 },
    ],
  ])('Chat usage: %s', (_name, usage, expected) => {
    expect(chatUsage({ usage })).toEqual(expected);
  });

  it("Anthropic: the writes are cache_creation_input_tokens, or the sum of cache_creation's lifetimes when only those are stated; the hour's apart (priced apart)", () => {
    const breakdown = { ephemeral_5m_input_tokens: 10, ephemeral_1h_input_tokens: 20 };
    const expected = { inputTokens: 35, outputTokens: 1, cacheWriteTokens: 30, cacheWrite1hTokens: 20 };
    expect(anthropicUsage({ input_tokens: 5, output_tokens: 1, cache_creation_input_tokens: 30, cache_creation: breakdown })).toEqual(expected);
    expect(anthropicUsage({ input_tokens: 5, output_tokens: 1, cache_creation: breakdown })).toEqual(expected);
    expect(anthropicUsage({ input_tokens: 5, output_tokens: 1, cache_creation_input_tokens: 30, cache_creation: { ephemeral_5m_input_tokens: 30, ephemeral_1h_input_tokens: 0 } })).toEqual({
      inputTokens: 35,
      outputTokens: 1,
      cacheWriteTokens: 30,
    });
  });

  it("follows a Kimi stream, whose usage sits in the last chunk's choice", () => {
    const watch = createChatWatch();
    const usage = { prompt_tokens: 100, completion_tokens: 4, total_tokens: 104, cached_tokens: 80 };
    watch.onEvent({ event: undefined, data: JSON.stringify({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: 'stop', usage }] }) });
    expect(watch.usage).toEqual({ inputTokens: 100, outputTokens: 4, cachedTokens: 80 });
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
