import { describe, expect, it } from 'vitest';
import { isLiteral, matchTemplate, parseTemplate } from './path-template.js';

const GEMINI = '/v1beta/models/{model}:generateContent';

describe('path templates', () => {
  it.each([
    ['/v1/messages', '/v1/messages', {}],
    ['/v1/messages', '/v1/messages/count_tokens', undefined],
    ['/v1/messages/count_tokens', '/v1/messages', undefined],
    [GEMINI, '/v1beta/models/gemini-2.5-pro:generateContent', { model: 'gemini-2.5-pro' }],
    [GEMINI, '/v1beta/models/tuned%2Fmy-model:generateContent', { model: 'tuned/my-model' }],
    [GEMINI, '/v1beta/models/gemini-2.5-pro:streamGenerateContent', undefined],
    [GEMINI, '/v1beta/models/:generateContent', undefined],
    [GEMINI, '/v1beta/models/a/b:generateContent', undefined],
    [GEMINI, '/v1beta/models/%E0%A4%A:generateContent', undefined],
    ['/v1/{a}/x/{b}', '/v1/one/x/two', { a: 'one', b: 'two' }],
    ['/v1/{a}/x/{b}', '/v1/one/y/two', undefined],
  ] as const)('%s against %s', (template, path, params) => {
    expect(matchTemplate(parseTemplate(template), path)).toEqual(params);
  });

  it('knows a literal template from one with parameters', () => {
    expect(isLiteral(parseTemplate('/v1/chat/completions'))).toBe(true);
    expect(isLiteral(parseTemplate(GEMINI))).toBe(false);
  });

  it.each(['v1/messages', '/v1/{a}{b}', '/v1/{a', '/v1/{1a}'])('refuses the malformed template %s', (template) => {
    expect(() => parseTemplate(template)).toThrow(/path template/);
  });
});
