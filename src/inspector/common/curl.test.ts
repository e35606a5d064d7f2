import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeToPrint } from '../../log/terminal-text.js';
import { runSnippets, shells, type SnippetRun } from '../../../test/helpers/shell-recorder.js';
import { curlCommand, type CurlInput } from './curl.js';

describe('curlCommand', () => {
  it('puts the key back as $MODEL_GATEWAY_KEY, drops transport headers and writes a JSON body with printf', () => {
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
        `printf '%s' '{"model":"m","stream":true,"messages":[{"role":"user","content":"don'\\''t $HOME"}]}' |`,
        '  curl -sS -N -X POST http://127.0.0.1:8787/v1/messages \\',
        '  -H "x-api-key: $MODEL_GATEWAY_KEY" \\',
        "  -H 'anthropic-version: 2023-06-01' \\",
        "  -H 'user-agent: it'\\''s me' \\",
        '  --data-binary @-',
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
      ['curl -sS -X GET "$MODEL_GATEWAY_URL"/v1/models \\', '  -H "authorization: Bearer $MODEL_GATEWAY_KEY" \\', "  -H 'x-multi: a' \\", "  -H 'x-multi: b'"].join('\n'),
    );
  });

  it('says so when the captured body was cut', () => {
    const command = curlCommand({ baseUrl: 'http://h', method: 'POST', path: '/v1/chat/completions', headers: {}, body: { bytes: 10, text: '{"model":', truncated: true } });
    expect(command.split('\n')[0]).toBe('# The body was cut at capture (10 bytes kept): this request is incomplete.');
  });
});

// What a pasted command runs in: a key and URL that would do harm if expanded twice.
const KEY = `k'$(canary)\`canary\`"`;
const GATEWAY_URL = 'http://gw.test:1';
const ENV = { MODEL_GATEWAY_KEY: KEY, MODEL_GATEWAY_URL: GATEWAY_URL };

// The specification the runs are checked against, written apart from curl.ts.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TRANSPORT = ['host', 'connection', 'content-length', 'transfer-encoding', 'accept-encoding', 'keep-alive', 'te', 'upgrade', 'expect', 'cookie', 'proxy-authorization'];
const KEYS: Record<string, string> = { authorization: `Bearer ${KEY}`, 'x-api-key': KEY, 'api-key': KEY };

function expectedUrl(input: CurlInput): string {
  const rooted = input.path.startsWith('/') ? input.path : `/${input.path}`;
  const encoded = [...rooted].map((c) => (/^[\x21-\x7e]$/.test(c) ? c : [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''))).join('');
  return `${input.baseUrl === '$MODEL_GATEWAY_URL' ? GATEWAY_URL : input.baseUrl}${encoded}`;
}

function expectedHeaders(input: CurlInput): string[] {
  const out: string[] = [];
  for (const [raw, value] of Object.entries(input.headers)) {
    const name = raw.toLowerCase();
    if (TRANSPORT.includes(name) || !TOKEN.test(name)) continue;
    if (Object.hasOwn(KEYS, name)) out.push(`${name}: ${KEYS[name]}`);
    else for (const v of [value].flat()) if (v != null && /^[\x20-\x7e]*$/.test(String(v))) out.push(String(v) === '' ? `${name};` : `${name}: ${String(v)}`);
  }
  return out;
}

function expectedBody(input: CurlInput): { bytes: Buffer } | { json: unknown } | undefined {
  if (input.body?.json !== undefined) return { json: JSON.parse(JSON.stringify(input.body.json)) };
  if (input.body?.text) return { bytes: Buffer.from(new TextEncoder().encode(input.body.text)) };
  return undefined;
}

/** Only curl ran, nothing else happened, and curl got exactly the recorded method, URL, headers and body. */
function expectSent(input: CurlInput, command: string, run: SnippetRun): void {
  const label = JSON.stringify({ input, command });
  expect({ canary: run.canary, stderr: run.stderr, stdout: run.stdout, status: run.status, strayFiles: run.strayFiles }, label).toEqual({
    canary: '',
    stderr: '',
    stdout: '',
    status: 0,
    strayFiles: [],
  });
  // Pasted into a terminal, the command types exactly what it reads: no control character but its line breaks.
  expect(safeToPrint(command.replaceAll('\n', '')), label).toBe(true);
  const argv = run.argv;
  expect(argv, label).toBeDefined();
  let method: string | undefined;
  let data: string | undefined;
  const headers: string[] = [];
  const positional: string[] = [];
  for (let i = 0; i < argv!.length; i++) {
    const a = argv![i]!;
    if (a === '-X') method = argv![++i];
    else if (a === '-H') headers.push(argv![++i]!);
    else if (a === '--data-binary') data = argv![++i];
    else if (!['-sS', '-N', '-g', '--path-as-is'].includes(a)) positional.push(a);
  }
  expect(method, label).toBe(TOKEN.test(input.method) ? input.method : undefined);
  expect(positional, label).toEqual([expectedUrl(input)]);
  expect(headers, label).toEqual(expectedHeaders(input));
  const body = expectedBody(input);
  expect(data, label).toBe(body === undefined ? undefined : '@-');
  if (body && 'bytes' in body) expect(run.stdin.equals(body.bytes), label).toBe(true);
  if (body && 'json' in body) expect(JSON.parse(run.stdin.toString('utf8')), label).toEqual(body.json);
}

function expectAllSent(inputs: readonly CurlInput[]): void {
  const commands = inputs.map(curlCommand);
  for (const [shell, locale] of shells().map((s, i) => [s, i === 0 ? 'C.UTF-8' : 'C'] as const)) {
    const runs = runSnippets(shell, commands, { ...ENV, LC_ALL: locale });
    for (const [i, input] of inputs.entries()) expectSent(input, commands[i]!, runs[i]!);
  }
}

const post = (over: Partial<CurlInput>): CurlInput => ({ baseUrl: '$MODEL_GATEWAY_URL', method: 'POST', path: '/v1/messages', headers: {}, ...over });
const text = (t: string): CurlInput => post({ body: { bytes: t.length, text: t } });
const header = (name: string, value: unknown): CurlInput => post({ headers: { [name]: value } });

/** The payloads of the finding, and their cousins, one class per group. */
const NAMED: ReadonlyArray<readonly [string, CurlInput]> = [
  ['body: the old heredoc terminator, then a command', text('{"a":1}\nMODEL_GATEWAY_BODY\ncanary\n')],
  ['body: the old terminator with CR', text('x\r\nMODEL_GATEWAY_BODY\r\ncanary\r\n')],
  ['body: command substitution', text('$(canary)')],
  ['body: backticks', text('`canary`')],
  ['body: single-quote breakout', text("'; canary; '")],
  ['body: double-quote breakout', text('"; canary; "')],
  ['body: NUL bytes', text('a\0b\0\0c')],
  ['body: printf directives and escapes', text('%s %n %% \\n \\0101 \\c')],
  ['body: an option for printf', text('-v PATH x')],
  ['body: Ctrl-C and a bracketed-paste end, then a command', text('\x03\ncanary\n\x1b[201~\ncanary\n')],
  ['body: non-ASCII, a lone surrogate, bidi override', text('é 😀 \uD800 \u202E x')],
  ['body: starts with @ (curl would read a file)', text('@/etc/passwd')],
  ['body: a hostile cut-off byte count', post({ body: { bytes: '1)\ncanary\n#' as unknown as number, text: 'x', truncated: true } })],
  ['JSON body: quotes, $, separators and control characters', post({ body: { bytes: 1, json: { a: "'$(canary)'", b: '\u2028\u2029\x1b[201~\ncanary', c: '`canary`' } } })],
  ['JSON body: a bare string', post({ body: { bytes: 1, json: "'; canary; '" } })],
  ['JSON body: null', post({ body: { bytes: 4, json: null } })],
  ['method: command after a separator', post({ method: 'POST; canary' })],
  ['method: command substitution', post({ method: '$(canary)' })],
  ['method: backticks', post({ method: '`canary`' })],
  ['method: a newline', post({ method: 'GET\ncanary' })],
  ['method: token characters the shell reads', post({ method: "A'B`C$D|E&F#G!H" })],
  ['method: looks like a curl option', post({ method: '-o/tmp/x' })],
  ['path: command substitution', post({ path: '/v1/$(canary)' })],
  ['path: backticks and double quotes', post({ path: '/v1/`canary`"; canary; "' })],
  ['path: single-quote breakout', post({ path: "/x'; canary; '" })],
  ['path: newline and control characters', post({ path: '/a\ncanary\r\x00\x1b' })],
  ['path: changes the host when unrooted', post({ path: '@evil.example/x' })],
  ['path: curl globs and dot segments', post({ path: '/{a,b}/[1-9]/../x' })],
  ['path: literal base URL', post({ baseUrl: 'http://127.0.0.1:8787', path: "/x'$(canary)" })],
  ['header value: command substitution', header('x-a', '$(canary)')],
  ['header value: single-quote breakout', header('x-a', "'; canary; '")],
  ['header value: CR LF header injection', header('x-a', 'a\r\nx-injected: 1')],
  ['header value: empty', header('x-a', '')],
  ['header value: non-ASCII and control', header('x-a', ['é', '\x1b[31m', 'ok'])],
  ['header name: not a token', header("x'; canary; '", 'v')],
  ['header name: a newline', header('x-a: b\ncanary', 'v')],
  ['header name: the key header with a hostile value', header('authorization', '$(canary)')],
  ['header names: Object.prototype keys', post({ headers: JSON.parse('{"constructor":"c","__proto__":"p","tostring":"t"}') })],
  ['header names: several that are not tokens', post({ headers: { 'a b': '1', 'c\nd': '2', 'x-ok': '3' } })],
];

// One shell process per batch; the timeout is for a loaded machine.
describe('curlCommand under a real shell', { timeout: 60_000 }, () => {
  it.skipIf(shells().length === 0).each(NAMED)('%s: only curl runs, and it gets the request as recorded', (_name, input) => {
    expectAllSent([input]);
  });

  const PAYLOADS = [
    '\nMODEL_GATEWAY_BODY\ncanary\n',
    'MODEL_GATEWAY_BODY',
    '$(canary)',
    '`canary`',
    "'; canary; '",
    '"; canary; "',
    '\\',
    "'",
    '"',
    '$',
    '`',
    '%',
    '%s',
    '-v',
    '@',
    '\0',
    '\r',
    '\n',
    '\t',
    '\x03',
    '\x1b[201~',
    '\uD800',
    '\uDFFF',
    '\u2028',
    '\u202E',
    '!!',
    'é',
    '😀',
  ];
  const hostile = fc
    .array(fc.oneof(fc.constantFrom(...PAYLOADS), fc.string({ unit: 'binary', maxLength: 6 }), fc.string({ unit: 'binary-ascii', maxLength: 6 })), { maxLength: 6 })
    .map((parts) => parts.join(''));
  const input: fc.Arbitrary<CurlInput> = fc
    .record({
    baseUrl: fc.constantFrom('$MODEL_GATEWAY_URL', 'http://127.0.0.1:8787'),
    method: fc.oneof(fc.constantFrom('GET', 'POST', 'M-SEARCH', "A'B", '-X'), hostile),
    path: fc.oneof(fc.constantFrom('/v1/messages', '/v1/x?a=1&b=$HOME', '/{a,b}', '/a/../b'), hostile),
    headers: fc
      .array(
        fc.tuple(
          fc.oneof(fc.constantFrom('authorization', 'x-api-key', 'host', 'x-a', 'X-B', 'constructor', '__proto__'), fc.stringMatching(/^[a-z0-9!#$%&'*+.^_`|~-]{1,8}$/), hostile),
          fc.oneof(hostile, fc.string({ unit: 'binary-ascii' }), fc.array(hostile, { maxLength: 3 })),
        ),
        { maxLength: 4 },
      )
      .map((entries) => Object.fromEntries(entries)),
    body: fc.option(
      fc.oneof(
        hostile.map((t) => ({ bytes: t.length, text: t })),
        fc.record({ bytes: fc.nat(), json: fc.oneof(fc.jsonValue(), fc.dictionary(hostile, hostile)), truncated: fc.constant(true as const) }, { requiredKeys: ['bytes', 'json'] }),
      ),
      { nil: undefined },
    ),
  })
    .map(({ body, ...rest }) => (body === undefined ? rest : { ...rest, body }));

  it.skipIf(shells().length === 0)('any method, path, headers and body: only curl runs, and it gets them exactly', () => {
    expectAllSent(fc.sample(input, { numRuns: 200 }));
  });
});
