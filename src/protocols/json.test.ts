import { describe, expect, it } from 'vitest';
import { lastUsageObject } from './json.js';

describe('lastUsageObject', () => {
  it.each([
    ['a Chat completion', { id: 'c', choices: [{ message: { content: 'the "usage": {} of words' } }], usage: { prompt_tokens: 3, completion_tokens: 4 } }, { prompt_tokens: 3, completion_tokens: 4 }],
    ['an Anthropic message', { content: [{ type: 'text', text: 'x}{' }], usage: { input_tokens: 1, cache_read_input_tokens: 2, output_tokens: 3 } }, { input_tokens: 1, cache_read_input_tokens: 2, output_tokens: 3 }],
    ['nested details with braces in strings', { output: [], usage: { input_tokens: 5, input_tokens_details: { note: '}{"', cached_tokens: 1 } } }, { input_tokens: 5, input_tokens_details: { note: '}{"', cached_tokens: 1 } }],
  ])('%s', (_name, body, usage) => {
    expect(lastUsageObject(Buffer.from(JSON.stringify(body, null, 1)))).toEqual(usage);
  });

  it.each([
    ['no usage', { id: 'x' }],
    ['usage as a string value only', { kind: 'usage' }],
    ['usage null', { usage: null }],
  ])('gives up on %s', (_name, body) => {
    expect(lastUsageObject(Buffer.from(JSON.stringify(body)))).toBeUndefined();
  });
});
