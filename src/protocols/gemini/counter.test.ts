import { describe, expect, it } from 'vitest';
import { geminiCounter } from './counter.js';

describe("Gemini's counter", () => {
  const create = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], systemInstruction: { parts: [{ text: 'Be terse.' }] }, tools: [] };

  it.each([
    ['gemini-3-pro-preview', 'models/gemini-3-pro-preview'],
    ['models/gemini-2.5-flash', 'models/gemini-2.5-flash'],
  ])('asks with the whole request in generateContentRequest, its model a resource name (%s)', (model, resource) => {
    expect(geminiCounter.ask(create, model)).toEqual({ generateContentRequest: { ...create, model: resource } });
  });

  it.each([
    [{ totalTokens: 17, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 17 }] }, 17],
    [{ total_tokens: 3 }, 3],
    [{ totalTokens: -1 }, undefined],
    [{ totalTokens: 1.5 }, undefined],
    [{ totalTokens: '17' }, undefined],
    [{ error: { code: 400 } }, undefined],
    [[17], undefined],
    [null, undefined],
  ])('reads %j as %s', (answer, count) => {
    expect(geminiCounter.read(answer)).toBe(count);
  });
});
