import { describe, expect, it } from 'vitest';
import { curlCommand, shellQuote } from './curl.js';

describe('curlCommand', () => {
  it('puts the key back as $MODEL_GATEWAY_KEY, drops transport headers and sends the body through a quoted heredoc', () => {
    const command = curlCommand({
      baseUrl: 'http://127.0.0.1:8787',
      method: 'POST',
      path: '/v1/messages',
      headers: {
        host: '127.0.0.1:8787',
        'content-length': '99',
        'x-api-key': '[redacted]',
        'anthropic-version': '2023-06-01',
        cookie: '[redacted]',
        'user-agent': "it's me",
      },
      body: { bytes: 40, json: { model: 'm', stream: true, messages: [{ role: 'user', content: "don't $HOME" }] } },
    });
    expect(command).toBe(
      [
        "curl -sS -X POST 'http://127.0.0.1:8787/v1/messages' \\",
        '  -N \\',
        '  -H "x-api-key: $MODEL_GATEWAY_KEY" \\',
        "  -H 'anthropic-version: 2023-06-01' \\",
        "  -H 'user-agent: it'\\''s me' \\",
        "  --data-binary @- <<'MODEL_GATEWAY_BODY'",
        '{"model":"m","stream":true,"messages":[{"role":"user","content":"don\'t $HOME"}]}',
        'MODEL_GATEWAY_BODY',
      ].join('\n'),
    );
    expect(command).not.toContain('[redacted]');
  });

  it('writes a bearer placeholder, repeats multi-valued headers, and leaves a variable base URL to the shell', () => {
    const command = curlCommand({
      baseUrl: '$MODEL_GATEWAY_URL',
      method: 'GET',
      path: '/v1/models',
      headers: { authorization: '[redacted]', 'x-multi': ['a', 'b'] },
    });
    expect(command).toBe(
      ['curl -sS -X GET "$MODEL_GATEWAY_URL/v1/models" \\', '  -H "authorization: Bearer $MODEL_GATEWAY_KEY" \\', "  -H 'x-multi: a' \\", "  -H 'x-multi: b'"].join('\n'),
    );
  });

  it('says so when the captured body was cut', () => {
    const command = curlCommand({ baseUrl: 'http://h', method: 'POST', path: '/v1/chat/completions', headers: {}, body: { bytes: 10, text: '{"model":', truncated: true } });
    expect(command.split('\n')[0]).toBe('# The body was cut at capture (10 bytes kept): this request is incomplete.');
  });

  it('quotes for POSIX shells', () => {
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });
});
