/**
 * Nothing that arrives reaches the terminal raw: a real gateway with `--verbose`, and one with `-vv`,
 * get hostile model names, header values, upstream error texts, streamed texts and SSE event names, and `replay` reads a
 * hostile recording against live hostile answers. The captured output (colour off, so chalk
 * writes no ESC of its own) must hold no control, C1, bidi or separator code point but LF, and
 * must show each payload escaped, so it was printed rather than dropped.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '#src/cli/io.js';
import { run } from '#src/cli/main.js';
import { messageFrames, sse } from '../helpers/canned.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { GATEWAY_KEY, startGateway, testConfig, type TestGateway } from '../helpers/start-gateway.js';

/** Code points that must never be printed raw (LF is allowed: it ends lines). */
const RAW_UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|[\ud800-\udfff]/u;
const rawUnsafeIn = (text: string) => [...text].filter((ch) => RAW_UNSAFE.test(ch)).map((ch) => `U+${ch.codePointAt(0)!.toString(16)}`);

/** ESC sequences (clear screen, window title), a C1 CSI, a carriage return and bidi controls in one text. */
const HOSTILE = '\x1b[2J\x1b]0;pwned\x07\u009b2J\r\u202eevil\u2066\u2028';
const HOSTILE_SHOWN = '\\x1b[2J\\x1b]0;pwned\\x07\\x9b2J\\r\\u202eevil\\u2066\\u2028';

let upstream: FakeUpstream;
/** A gateway per verbosity: `--verbose` (streams put together, telemetry folded) and `-vv` (raw events, every header). */
let gateways: Record<1 | 2, TestGateway>;
/** The `-vv` one, which `replay` below is sent to too. */
let gw: TestGateway;
let openai: OpenAI;
const dirs: string[] = [];

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gateways = { 1: await startGateway(testConfig(upstream.url), { verbose: 1 }), 2: await startGateway(testConfig(upstream.url), { verbose: 2 }) };
  gw = gateways[2];
  openai = new OpenAI({ apiKey: GATEWAY_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await gateways[1].close();
  await gateways[2].close();
  await upstream.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A request with header bytes the SDKs refuse to send: 0x80–0xFF arrive as C1 and Latin-1 code points. */
function rawRequest(target: TestGateway, headerLines: string[], body: string): Promise<string> {
  const { port } = new URL(target.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    const head = [
      'POST /v1/chat/completions HTTP/1.1',
      'host: 127.0.0.1',
      `authorization: Bearer ${GATEWAY_KEY}`,
      'content-type: application/json',
      `content-length: ${Buffer.byteLength(body)}`,
      'connection: close',
      ...headerLines,
    ];
    socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), Buffer.from(body)]));
  });
}

/** Runs `send`, waits for the request's log, and returns what the gateway printed for it. */
async function printedFor(target: TestGateway, send: () => Promise<unknown>): Promise<string> {
  const before = target.output.join('').length;
  const lines = target.lines().length;
  await send();
  const until = Date.now() + 5000;
  while (target.lines().length <= lines && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  return target.output.join('').slice(before);
}

const chatBody = (model: string) => JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] });

/** An event of an unknown type with a hostile name first (clients skip those), then the real stream, its text hostile. */
const streamWithHostileEvents = (_req: unknown, res: ServerResponse) => {
  const frames = messageFrames('claude-upstream').map((f) => f.replace('"Hello"', JSON.stringify(`said${HOSTILE}`)));
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end([sse({ type: 'ping', note: HOSTILE }, `ping${HOSTILE.replace(/[\r\u2028]/g, '')}`), ...frames].join(''));
};

describe.each([1, 2] as const)('serve at verbosity %i prints hostile text escaped', (level) => {
  const cases: readonly { what: string; send: (target: TestGateway, client: OpenAI) => Promise<unknown>; shown: Record<1 | 2, readonly string[]> }[] = [
    {
      what: 'a model name (refused: not configured)',
      send: (_t, client) => client.chat.completions.create({ model: `gpt${HOSTILE}`, messages: [{ role: 'user', content: 'hi' }] }).catch(() => undefined),
      shown: { 1: [`gpt${HOSTILE_SHOWN}`], 2: [`gpt${HOSTILE_SHOWN}`] },
    },
    {
      what: 'header values and the user-agent with C1 bytes',
      send: (target) => rawRequest(target, ['user-agent: agent\x9b2J\x9d0;pwned', 'x-note: \x85\x80next'], chatBody('gpt-test')),
      // One header a line, the user agent on the telemetry line; or the headers as JSON.
      shown: { 1: ['telemetry: agent\\x9b2J\\x9d0;pwned', 'x-note: \\x85\\x80next'], 2: ['agent\\u009b2J\\u009d0;pwned', '\\u0085\\u0080next'] },
    },
    {
      what: 'an upstream error text',
      send: (_t, client) => {
        upstream.once((_req, res) => sendJson(res, 400, { error: { message: `bad${HOSTILE}`, type: 'invalid_request_error' } }));
        return client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }).catch(() => undefined);
      },
      shown: { 1: ['\\u001b]0;pwned\\u0007\\u009b2J\\r\\u202eevil\\u2066\\u2028'], 2: ['\\u001b]0;pwned\\u0007\\u009b2J\\r\\u202eevil\\u2066\\u2028'] },
    },
    {
      what: 'SSE event names and data from the upstream',
      send: (target) => {
        upstream.once(streamWithHostileEvents);
        const body = JSON.stringify({ model: 'claude-test', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hi' }] });
        return fetch(`${target.url}/v1/messages`, {
          method: 'POST',
          headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
          body,
        }).then((r) => r.text());
      },
      // The answer put together; or the raw events, their names and data.
      shown: {
        1: [`text      said${HOSTILE_SHOWN} from upstream`],
        2: ['ping\\x1b[2J\\x1b]0;pwned\\x07\\x9b2J\\u202eevil\\u2066', '"note":"\\u001b[2J', '"said\\u001b[2J'],
      },
    },
  ];

  it.each(cases)('$what', async ({ send, shown }) => {
    const target = gateways[level];
    const client = new OpenAI({ apiKey: GATEWAY_KEY, baseURL: `${target.url}/v1`, maxRetries: 0 });
    const printed = await printedFor(target, () => send(target, client));
    expect(rawUnsafeIn(printed)).toEqual([]);
    for (const s of shown[level]) expect(printed).toContain(s);
    // And the gateway keeps serving.
    const ok = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(ok.choices[0]?.message.content).toBe('Hello from upstream');
  });
});

/** Runs the CLI in-process with captured output. */
async function cli(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (out += s) },
    env: { MODEL_GATEWAY_KEY: GATEWAY_KEY },
    cwd: tmpdir(),
    stopSignal: () => new Promise(() => undefined),
  };
  const code = await run(args, io);
  return { code, out };
}

describe('replay prints a hostile recording and hostile live answers escaped', () => {
  const messagesBody = { model: 'claude-test', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hi' }] };
  const chatRequest = { model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] };
  const exchanges = [
    {
      v: 1,
      id: `req_a${HOSTILE}`,
      time: '2026-01-01T00:00:00.000Z',
      method: 'POST',
      path: '/v1/messages',
      model: `claude-test${HOSTILE}`,
      stream: true,
      status: 200,
      request: {
        headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': '[redacted]' },
        body: { bytes: 100, json: messagesBody },
      },
      response: {
        status: 200,
        body: {
          bytes: 100,
          events: [
            { t: 1, event: `hello${HOSTILE}`, data: { type: 'ping' } },
            ...messageFrames('claude-upstream').map((frame, i) => {
              const [, event, data] = /^event: (.*)\ndata: (.*)\n\n$/.exec(frame)!;
              const hostile = data!.replace('"Hello"', JSON.stringify(`said${HOSTILE}`)).replace('"end_turn"', JSON.stringify(`end${HOSTILE}`));
              return { t: i + 2, event: event!, data: JSON.parse(hostile) as unknown };
            }),
          ],
        },
      },
    },
    {
      v: 1,
      id: 'req_b',
      time: '2026-01-01T00:00:01.000Z',
      method: 'POST',
      path: '/v1/chat/completions',
      model: 'gpt-test',
      status: 200,
      request: { headers: { 'content-type': 'application/json', authorization: '[redacted]' }, body: { bytes: 60, json: chatRequest } },
      response: { status: 200, body: { bytes: 60, json: { [`key${HOSTILE}`]: `value${HOSTILE}`, choices: [] } } },
    },
    {
      v: 1,
      id: 'req_c',
      time: '2026-01-01T00:00:02.000Z',
      method: `GET${HOSTILE}`,
      path: `/v1/models${HOSTILE}`,
      request: { headers: {}, body: { bytes: 0 } },
    },
  ];

  it('escapes ids, models, methods, paths, event names, texts, JSON keys and values, and live error texts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-escapes-'));
    dirs.push(dir);
    const file = join(dir, 'hostile.jsonl');
    writeFileSync(file, `${exchanges.map((x) => JSON.stringify(x)).join('\n')}\n`);
    upstream.once(streamWithHostileEvents);
    upstream.once((_req, res) => sendJson(res, 400, { error: { message: `live${HOSTILE}`, type: 'invalid_request_error' } }));

    const { code, out } = await cli(['replay', file, '--to', gw.url, '--no-color']);
    expect(code).toBe(1);
    expect(rawUnsafeIn(out)).toEqual([]);
    for (const shown of [
      `req_a${HOSTILE_SHOWN}`,
      `claude-test${HOSTILE_SHOWN}`,
      `hello${HOSTILE_SHOWN}`,
      `ping\\x1b[2J\\x1b]0;pwned\\x07\\x9b2J\\u202eevil\\u2066`,
      '"said\\u001b[2J\\u001b]0;pwned\\u0007\\u009b2J\\r\\u202eevil\\u2066\\u2028 from upstream"',
      '["key\\u001b[2J\\u001b]0;pwned\\u0007\\u009b2J\\r\\u202eevil\\u2066\\u2028"]',
      `replayed: invalid_request_error: live${HOSTILE_SHOWN}`,
      `GET${HOSTILE_SHOWN} /v1/models${HOSTILE_SHOWN}`,
    ]) {
      expect(out).toContain(shown);
    }
    // The gateway keeps serving.
    const ok = await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(ok.choices[0]?.message.content).toBe('Hello from upstream');
  });
});

describe('the CLI prints hostile config values escaped', () => {
  // A name the loader accepts (no whitespace, no glob brackets): a terminal reset, BEL, a C1 CSI, bidi controls.
  const NAME = '\x1bc\x07\u009b2J\u202eevil\u2066';
  const NAME_SHOWN = '\\x1bc\\x07\\x9b2J\\u202eevil\\u2066';
  const dir = mkdtempSync(join(tmpdir(), 'mgw-escapes-cli-'));
  dirs.push(dir);
  const configFile = join(dir, 'gateway.config.json');
  const refusedFile = join(dir, 'refused.json');
  writeFileSync(refusedFile, JSON.stringify({ providers: { e: { type: 'echo' } }, models: { [`m${HOSTILE}`]: { provider: 'e' } } }));
  writeFileSync(
    configFile,
    JSON.stringify({
      server: { port: 8787 },
      providers: { [`p${NAME}`]: { type: 'echo' } },
      models: { [`m${NAME}`]: { provider: `p${NAME}`, description: `d${NAME}` } },
      keyGroups: { [`g${NAME}`]: { keys: [{ name: `k${NAME}`, key: GATEWAY_KEY }], models: ['*'] } },
    }),
  );

  it.each([
    ['check', ['check', '--config', configFile, '--no-color'], `g${NAME_SHOWN}`],
    ['models', ['models', '--config', configFile, '--key', GATEWAY_KEY, '--no-color'], `d${NAME_SHOWN}`],
    // Shell words are quoted as $'…' with octal escapes (src/inspector/common/shell.ts).
    ['env', ['env', 'shell', '--config', configFile, '--model', `m${NAME}`], "ANTHROPIC_MODEL=$'m\\033c"],
    ['env with an unknown model (the error quotes it)', ['env', 'shell', '--config', configFile, '--model', `nope${NAME}`], `nope${NAME_SHOWN}`],
  ])('%s', async (_what, args, shown) => {
    const { out } = await cli(args);
    expect(rawUnsafeIn(out)).toEqual([]);
    expect(out).toContain(shown);
    expect(out).not.toContain('Invalid configuration');
  });

  it('a config the loader refuses: its message quotes the name', async () => {
    const { code, out } = await cli(['check', '--config', refusedFile, '--no-color']);
    expect(code).toBe(1);
    expect(rawUnsafeIn(out)).toEqual([]);
    expect(out).toContain('pwned');
  });
});
