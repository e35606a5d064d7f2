import { describe, expect, it } from 'vitest';
import { inputTokensBody, readInputTokens } from './input-tokens.js';

describe('inputTokensBody', () => {
  it('keeps the fields the counter takes and leaves out the rest of a Responses request', () => {
    const request = {
      model: 'gpt-5',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', name: 'Read', parameters: {} }],
      tool_choice: 'auto',
      reasoning: { effort: 'high' },
      stream: true,
      max_output_tokens: 1000,
      store: false,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'sess',
      temperature: undefined,
    };
    expect(inputTokensBody(request)).toEqual({
      model: 'gpt-5',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', name: 'Read', parameters: {} }],
      tool_choice: 'auto',
      reasoning: { effort: 'high' },
    });
  });
});

describe('readInputTokens', () => {
  it.each([
    ['a count', { object: 'response.input_tokens', input_tokens: 1234 }, 1234],
    ['zero', { object: 'response.input_tokens', input_tokens: 0 }, 0],
    ['a fraction', { input_tokens: 1.5 }, undefined],
    ['a negative count', { input_tokens: -1 }, undefined],
    ['a string', { input_tokens: '12' }, undefined],
    ['a Responses answer', { object: 'response', usage: { input_tokens: 5 } }, undefined],
    ['not an object', [1], undefined],
  ])('reads %s', (_name, answer, expected) => {
    expect(readInputTokens(answer)).toBe(expected);
  });
});
