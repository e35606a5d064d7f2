import { describe, expect, it } from 'vitest';
import { protocolPath, urlUnder } from './url.js';

describe('urlUnder', () => {
  it.each([
    ['https://api.openai.com/v1', ['chat', 'completions'], 'https://api.openai.com/v1/chat/completions'],
    ['https://api.openai.com/v1/', ['responses'], 'https://api.openai.com/v1/responses'],
    ['https://x.openai.azure.com/openai/v1?api-version=old#frag', ['responses'], 'https://x.openai.azure.com/openai/v1/responses'],
    // A name from a request stays one segment, whatever it holds.
    ['https://h/openai/deployments', ['a/b', 'chat'], 'https://h/openai/deployments/a%2Fb/chat'],
    ['https://h/d', ['m?x=1#y'], 'https://h/d/m%3Fx%3D1%23y'],
    ['https://h/d', ['m@evil.com'], 'https://h/d/m%40evil.com'],
    ['https://h/d', ['..x'], 'https://h/d/..x'],
  ])('%s + %j = %s', (base, segments, expected) => {
    expect(urlUnder(base, ...segments).href).toBe(expected);
  });

  it.each(['.', '..', '%2e', '%2E%2e', '.%2e', ''])('refuses the segment %j, which would move up the path', (segment) => {
    expect(() => urlUnder('https://h/a/b', segment)).toThrow(RangeError);
  });
});

describe('protocolPath', () => {
  it.each([
    ['responses', 'create', ['responses']],
    ['chat', 'create', ['chat', 'completions']],
    ['messages', 'create', ['messages']],
    ['messages', 'count_tokens', ['messages', 'count_tokens']],
  ] as const)('%s %s → %j', (protocol, operation, path) => {
    expect(protocolPath(protocol, operation)).toEqual(path);
  });
});
