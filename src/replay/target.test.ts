import { describe, expect, it } from 'vitest';
import { ExitError } from '../errors.js';
import { replayTarget, replayUrl, shownTarget } from './target.js';

describe('replayTarget', () => {
  it.each([
    ['http://127.0.0.1:8787', 'http://127.0.0.1:8787', ''],
    ['http://127.0.0.1:8787/', 'http://127.0.0.1:8787', ''],
    ['http://127.0.0.1:8787/v1', 'http://127.0.0.1:8787', ''],
    ['https://gw.example/prefix/v1/', 'https://gw.example', '/prefix'],
    ['http://[::1]:9000/gw', 'http://[::1]:9000', '/gw'],
  ])('%s → %s + %j', (given, origin, prefix) => {
    const target = replayTarget(given);
    expect(target).toEqual({ origin, prefix });
    expect(shownTarget(target)).toBe(`${origin}${prefix}`);
  });

  it.each([
    ['127.0.0.1:8787', /is not a URL|expected http/],
    ['ftp://x', /expected http:\/\/ or https:\/\//],
    ['file:///etc/passwd', /expected http:\/\/ or https:\/\//],
    ['http://user:pass@127.0.0.1:8787', /user name or password/],
    ['http://user@127.0.0.1:8787', /user name or password/],
    ['http://127.0.0.1:8787/?x=1', /without \? or #/],
    ['http://127.0.0.1:8787/#frag', /without \? or #/],
  ])('refuses %s as a usage error', (given, message) => {
    let err: unknown;
    try {
      replayTarget(given);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExitError);
    expect(err).toMatchObject({ exitCode: 2, message: expect.stringMatching(/^--to: /) });
    expect((err as Error).message).toMatch(message);
  });
});

describe('replayUrl', () => {
  const bare = replayTarget('http://127.0.0.1:8787');
  const prefixed = replayTarget('https://gw.example/team/v1');

  it.each([
    ['/v1/chat/completions', 'http://127.0.0.1:8787/v1/chat/completions', 'https://gw.example/team/v1/chat/completions'],
    ['/v1/messages/count_tokens', 'http://127.0.0.1:8787/v1/messages/count_tokens', 'https://gw.example/team/v1/messages/count_tokens'],
    ['/v1/models/qwen2.5-coder:7b', 'http://127.0.0.1:8787/v1/models/qwen2.5-coder:7b', 'https://gw.example/team/v1/models/qwen2.5-coder:7b'],
    ['/v1/models/org/model', 'http://127.0.0.1:8787/v1/models/org/model', 'https://gw.example/team/v1/models/org/model'],
    ['/v1/models/caf%C3%A9%2B1', 'http://127.0.0.1:8787/v1/models/caf%C3%A9%2B1', 'https://gw.example/team/v1/models/caf%C3%A9%2B1'],
    ['/health', 'http://127.0.0.1:8787/health', 'https://gw.example/team/health'],
    ['/', 'http://127.0.0.1:8787/', 'https://gw.example/team/'],
  ])('sends %s under the base URL', (path, bareUrl, prefixedUrl) => {
    expect(replayUrl(bare, path)).toEqual({ url: new URL(bareUrl) });
    expect(replayUrl(prefixed, path)).toEqual({ url: new URL(prefixedUrl) });
  });

  it.each([
    ['userinfo', '@127.0.0.1:9/v1/chat/completions'],
    ['userinfo after a slash', '/@127.0.0.1:9/v1'],
    ['a scheme', 'http://127.0.0.1:9/'],
    ['a scheme-relative URL', '//127.0.0.1:9/x'],
    ['a backslash', '/\\127.0.0.1:9'],
    ['backslashes only', '\\\\127.0.0.1:9/x'],
    ['an escaped //', '%2F%2F127.0.0.1:9'],
    ['an escaped / after a slash', '/%2f%2f127.0.0.1:9'],
    ['an escaped backslash', '/%5c127.0.0.1:9'],
    ['an escaped @', '/v1%40127.0.0.1:9'],
    ['escaped dot segments', '/..%2f..%2fadmin'],
    ['an escaped dot', '/v1/%2e%2e/x'],
    ['a double escape', '/v1/%252F%252F'],
    ['a broken escape', '/v1/%zz'],
    ['a dot-dot segment', '/v1/../../x'],
    ['a dot segment', '/v1/./chat'],
    ['an empty segment', '/v1//chat'],
    ['a space', '/v1/chat completions'],
    ['CRLF', '/v1/chat\r\nHost: evil'],
    ['a tab', '/v1/\tchat'],
    ['NUL', '/v1/chat\u0000'],
    ['a query', '/v1/chat?x=1'],
    ['a fragment', '/v1/chat#x'],
    ['non-ASCII', '/v1/ｃhat'],
    ['no leading slash', 'v1/chat/completions'],
    ['nothing', ''],
  ])('refuses a path with %s', (_name, path) => {
    for (const target of [bare, prefixed]) {
      const out = replayUrl(target, path);
      expect(out).toEqual({ refuse: expect.stringMatching(/^its path is not a plain gateway path: /) });
    }
  });
});
