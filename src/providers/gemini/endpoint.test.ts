/** The Gemini API's URLs: the model one segment, the method after it, `alt=sse` for a stream. */
import { describe, expect, it } from 'vitest';
import { geminiCallUrl, type GeminiCall } from './endpoint.js';

describe('gemini URLs', () => {
  const base = 'https://generativelanguage.googleapis.com/v1beta';
  it.each<[GeminiCall, string]>([
    [{ operation: 'create', model: 'gemini-3-pro-preview', stream: false }, '/v1beta/models/gemini-3-pro-preview:generateContent'],
    [{ operation: 'create', model: 'gemini-3-pro-preview', stream: true }, '/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse'],
    [{ operation: 'count_tokens', model: 'gemini-2.5-flash', stream: false }, '/v1beta/models/gemini-2.5-flash:countTokens'],
    // A count is never streamed, whatever the flag says.
    [{ operation: 'count_tokens', model: 'gemini-2.5-flash', stream: true }, '/v1beta/models/gemini-2.5-flash:countTokens'],
    // Google's own lists name models with their resource prefix.
    [{ operation: 'create', model: 'models/gemini-2.5-flash-001', stream: false }, '/v1beta/models/gemini-2.5-flash-001:generateContent'],
  ])('%j → %s', (call, path) => {
    const url = geminiCallUrl(base, call);
    expect(url.origin).toBe('https://generativelanguage.googleapis.com');
    expect(url.pathname + url.search).toBe(path);
  });

  it.each(['../files', 'gemini-3-pro:streamGenerateContent', 'gemini?key=x', 'gemini#x', 'a/b', 'tunedModels/x', '', '.', 'models/..', 'gemini 3'])(
    'refuses the model name %j',
    (model) => {
      expect(() => geminiCallUrl(base, { operation: 'create', model, stream: false })).toThrow(RangeError);
    },
  );

  it('has no compaction call', () => {
    expect(() => geminiCallUrl(base, { operation: 'compact', model: 'gemini-2.5-flash', stream: false })).toThrow(/no compaction/);
  });
});
