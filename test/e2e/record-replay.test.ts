/**
 * Record and replay, end to end: the official SDKs call a real gateway started with
 * `--log-file`, the recording is checked for whole exchanges (the client's request,
 * each upstream attempt as sent and answered, the client's answer, stream events
 * with their times), then `model-gateway replay` sends it again through `run(argv, io)`
 * in-process, against the same gateway or another, and its comparison and exit code
 * are checked.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { closedPort } from '../helpers/http.js';
import Anthropic from '@anthropic-ai/sdk';
import AnthropicV0 from 'anthropic-sdk-0';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '#src/cli/io.js';
import { run } from '#src/cli/main.js';
import type { BodyJson, ExchangeJson, StreamEventJson } from '#src/log/exchange-json.js';
import { chatFrames, messageJson } from '../helpers/canned.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import type { Received } from '../helpers/received.js';
import {
  GATEWAY_KEY,
  PROVIDER_ANTHROPIC_KEY,
  PROVIDER_OPENAI_KEY,
  startGateway,
  testConfig,
  waitForLines,
  type TestGateway,
} from '../helpers/start-gateway.js';

const tempDirs: string[] = [];
const tempFile = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'mgw-replay-'));
  tempDirs.push(dir);
  return join(dir, name);
};
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());

function readEntries(file: string): ExchangeJson[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ExchangeJson);
}

/** Waits until the log file holds `count` lines: the logger writes it after the log line, asynchronously. */
async function waitForEntries(file: string, count: number, timeoutMs = 5000): Promise<ExchangeJson[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const lines = text.split('\n').filter((l) => l !== '');
    if (lines.length >= count && text.endsWith('\n')) return lines.map((l) => JSON.parse(l) as ExchangeJson);
    if (Date.now() > until) throw new Error(`expected ${count} entries in ${file}, got ${lines.length}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs the CLI in-process with captured output. */
async function cli(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    env: options.env ?? { MODEL_GATEWAY_KEY: GATEWAY_KEY },
    cwd: options.cwd ?? tmpdir(),
    stopSignal: () => new Promise(() => undefined),
  };
  const code = await run(args, io);
  return { code, stdout, stderr };
}

/** The block replay prints for one exchange: from its heading to the next blank line. */
function blockFor(stdout: string, id: string): string {
  const start = stdout.indexOf(`${id}  `);
  if (start === -1) throw new Error(`no block for ${id} in:\n${stdout}`);
  const end = stdout.indexOf('\n\n', start);
  return stdout.slice(start, end === -1 ? undefined : end);
}

const types = (body: BodyJson | undefined) => (body?.events ?? []).map((e) => e.event ?? (typeof e.data === 'string' ? e.data : 'chunk'));
const nonDecreasing = (events: readonly StreamEventJson[]) => events.every((e, i) => i === 0 || e.t >= events[i - 1]!.t);

// ------------------------------------------------------------------ recording

describe('--log-file records whole exchanges', () => {
  let entries: ExchangeJson[];
  let file: string;

  beforeAll(async () => {
    file = tempFile('requests.jsonl');
    const dead = await closedPort();
    const base = testConfig(upstream.url);
    const config = {
      ...base,
      providers: { ...base.providers, dead: { type: 'openai-compatible', baseUrl: `http://127.0.0.1:${dead}/v1` } },
      models: { ...base.models, 'dead-model': { provider: 'dead' } },
    } as typeof base;
    const gw = await startGateway(config, { logFile: file });
    try {
      const anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
      const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });

      // 1. Translated stream: Messages caller, Chat upstream.
      const stream = await anthropic.messages.create({ model: 'local-chat', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'stream me' }] });
      for await (const _ of stream);
      // 2. Passthrough JSON.
      await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'plain' }] });
      // 3. Passthrough stream (Responses).
      const responses = await openai.responses.create({ model: 'gpt-test', input: 'stream responses', stream: true });
      for await (const _ of responses);
      // 4. Translated JSON: Chat caller, Messages upstream.
      await openai.chat.completions.create({ model: 'claude-test', messages: [{ role: 'user', content: 'translate me' }] });
      // 5. The upstream refuses (400: not retried by the gateway).
      upstream.once((_req, res) => sendJson(res, 400, { error: { message: 'bad temperature', type: 'invalid_request_error', param: 'temperature' } }));
      await expect(openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'refused' }] })).rejects.toThrow(/bad temperature/);
      // 6. A translated stream the upstream breaks off (no finish, no [DONE]).
      upstream.once((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(chatFrames('qwen2.5-coder:7b', true).slice(0, 2).join(''));
      });
      const broken = await anthropic.messages.create({ model: 'local-chat', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'break' }] });
      await expect((async () => {
        for await (const _ of broken);
      })()).rejects.toThrow();
      // 7. A provider nobody answers for.
      await expect(openai.chat.completions.create({ model: 'dead-model', messages: [{ role: 'user', content: 'anyone?' }] })).rejects.toThrow();
      await waitForLines(gw, 7);
    } finally {
      await gw.close();
    }
    entries = readEntries(file);
  });

  const entry = (i: number) => {
    const e = entries[i];
    if (!e) throw new Error(`no entry ${i}`);
    return e;
  };

  it('writes one exchange per request, in order', () => {
    expect(entries.map((e) => [e.path, e.model, e.status])).toEqual([
      ['/v1/messages', 'local-chat', 200],
      ['/v1/chat/completions', 'gpt-test', 200],
      ['/v1/responses', 'gpt-test', 200],
      ['/v1/chat/completions', 'claude-test', 200],
      ['/v1/chat/completions', 'gpt-test', 400],
      ['/v1/messages', 'local-chat', 200],
      ['/v1/chat/completions', 'dead-model', 502],
    ]);
    for (const e of entries) expect(e).toMatchObject({ v: 1, id: expect.stringMatching(/^req_/), time: expect.stringMatching(/^\d{4}-/) });
  });

  it('a translated stream: the Messages request, the Chat request sent upstream, its events and the events the client got, timed', () => {
    const x = entry(0);
    expect(x).toMatchObject({ protocol: 'messages', upstreamProtocol: 'chat', provider: 'local', upstreamModel: 'qwen2.5-coder:7b', stream: true });
    expect(x.request?.headers).toMatchObject({ authorization: '[redacted]', 'anthropic-version': expect.any(String) });
    expect(x.request?.body).toMatchObject({ json: { model: 'local-chat', stream: true, messages: [{ role: 'user', content: 'stream me' }] } });

    expect(x.attempts).toHaveLength(1);
    const attempt = x.attempts![0]!;
    expect(attempt).toMatchObject({ protocol: 'chat', provider: 'local', status: 200, t: expect.any(Number) });
    expect(attempt.body.json).toMatchObject({
      model: 'qwen2.5-coder:7b',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'stream me' }],
    });
    expect(types(attempt.response)).toEqual(['chunk', 'chunk', 'chunk', 'chunk', 'chunk', 'chunk', '[DONE]']);
    expect(attempt.response.events![1]).toMatchObject({ t: expect.any(Number), data: { object: 'chat.completion.chunk', choices: [{ delta: { content: 'Hello' } }] } });
    expect(nonDecreasing(attempt.response.events!)).toBe(true);

    expect(x.response?.status).toBe(200);
    expect(x.response?.headers).toMatchObject({ 'content-type': expect.stringContaining('text/event-stream'), 'x-model-gateway-translated': 'messages->chat' });
    const got = x.response!.body;
    expect(types(got)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(got.events!.map((e) => (e.data as { delta?: { text?: string } }).delta?.text ?? '').join('')).toBe('Hello from upstream');
    expect(nonDecreasing(got.events!)).toBe(true);
    // The client's events come after the upstream's first event that caused them.
    expect(got.events![0]!.t).toBeGreaterThanOrEqual(attempt.response.events![0]!.t);
  });

  it('passthrough JSON: the request, the request as sent (model renamed), the answer', () => {
    const x = entry(1);
    expect(x).toMatchObject({ protocol: 'chat', upstreamProtocol: 'chat', upstreamModel: 'gpt-upstream' });
    expect(x.request?.body.json).toMatchObject({ model: 'gpt-test' });
    expect(x.attempts![0]).toMatchObject({ status: 200, body: { json: { model: 'gpt-upstream' } }, response: { json: { object: 'chat.completion' } } });
    expect(x.response).toMatchObject({ status: 200, body: { json: { object: 'chat.completion', choices: [{ message: { content: 'Hello from upstream' } }] } } });
  });

  it('passthrough stream: every event the client got, timed', () => {
    const x = entry(2);
    expect(x.attempts![0]!.body.json).toMatchObject({ model: 'gpt-upstream', stream: true, input: 'stream responses' });
    const events = x.response!.body.events!;
    expect(types(x.response!.body)).toEqual(types(x.attempts![0]!.response));
    expect(events[0]).toMatchObject({ event: 'response.created', t: expect.any(Number), data: { type: 'response.created', sequence_number: 0 } });
    expect(events.at(-1)).toMatchObject({ event: 'response.completed' });
  });

  it('translated JSON: the Messages request sent upstream and its answer, and the Chat answer the client got', () => {
    const x = entry(3);
    expect(x).toMatchObject({ protocol: 'chat', upstreamProtocol: 'messages' });
    expect(x.attempts![0]!.headers).toMatchObject({ 'anthropic-version': '2023-06-01' });
    expect(x.attempts![0]!.body.json).toMatchObject({ model: 'claude-upstream', max_tokens: expect.any(Number), messages: [{ role: 'user' }] });
    expect(x.attempts![0]!.response.json).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'Hello from upstream' }] });
    expect(x.response?.body.json).toMatchObject({ object: 'chat.completion', model: 'claude-test', choices: [{ message: { content: 'Hello from upstream' } }] });
  });

  it("an upstream error: its status and body on the attempt, and the error the client got", () => {
    const x = entry(4);
    expect(x.error).toMatch(/bad temperature/);
    expect(x.attempts).toHaveLength(1);
    expect(x.attempts![0]).toMatchObject({ status: 400, response: { json: { error: { message: 'bad temperature' } } } });
    expect(x.response).toMatchObject({ status: 400, body: { json: { error: { message: expect.stringContaining('bad temperature') } } } });
  });

  it('a stream that broke off: the upstream events up to the break, and the error event the client got', () => {
    const x = entry(5);
    expect(x.error).toMatch(/ended the stream before it was complete/);
    expect(types(x.attempts![0]!.response)).toEqual(['chunk', 'chunk']);
    const got = types(x.response!.body);
    expect(got[0]).toBe('message_start');
    expect(got.at(-1)).toBe('error');
    expect(got).not.toContain('message_stop');
  });

  it('an unreachable provider: each attempt without an answer, with why, and the 502 the client got', () => {
    const x = entry(6);
    expect(x.attempts!.length).toBeGreaterThanOrEqual(1);
    for (const a of x.attempts!) {
      expect(a.status).toBeUndefined();
      expect(a.error).toEqual(expect.any(String));
      expect(a.response.bytes).toBe(0);
    }
    expect(x.response).toMatchObject({ status: 502, body: { json: { error: { type: expect.any(String) } } } });
  });

  it('holds no key', () => {
    const text = readFileSync(file, 'utf8');
    for (const secret of [GATEWAY_KEY, PROVIDER_OPENAI_KEY, PROVIDER_ANTHROPIC_KEY]) expect(text).not.toContain(secret);
  });
});

// ------------------------------------------------------------------ replay

describe('model-gateway replay', () => {
  let gw: TestGateway;
  let file: string;
  let ids: { stream: string; v0: string; chat: string; refused: string };

  beforeAll(async () => {
    const recording = tempFile('recording.jsonl');
    file = tempFile('replay-me.jsonl');
    gw = await startGateway(testConfig(upstream.url), { logFile: recording });
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
    const stream = await anthropic.messages.create({ model: 'local-chat', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'stream me' }] });
    for await (const _ of stream);
    // The 0.x SDK sends its key as x-api-key, the 1.x SDK as a Bearer token.
    const v0 = new AnthropicV0({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
    await v0.messages.create({ model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'old sdk' }] });
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'plain' }] });
    // Refused before its body was read: nothing to send again.
    await expect(new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'not-a-key', maxRetries: 0 }).chat.completions.create({ model: 'gpt-test', messages: [] })).rejects.toThrow();
    await waitForLines(gw, 4);
    const entries = await waitForEntries(recording, 4);
    // Replays through this gateway are recorded too: they go to `recording`, and replay reads a copy.
    copyFileSync(recording, file);
    ids = { stream: entries[0]!.id, v0: entries[1]!.id, chat: entries[2]!.id, refused: entries[3]!.id };
  });
  afterAll(() => gw.close());

  it('sends every recorded request again and finds the same answers (exit 0)', async () => {
    const before = upstream.received.length;
    const { code, stdout, stderr } = await cli(['replay', file, '--to', gw.url, '--no-color']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain(`Replaying 4 exchanges of ${file} against ${gw.url}\n`);

    const stream = blockFor(stdout, ids.stream);
    expect(stream).toContain('POST /v1/messages  local-chat  stream  (line 1)');
    expect(stream).toContain('  status   200 → 200\n');
    expect(stream).toContain(
      '  events   same: (9) message_start ping content_block_start content_block_delta ×3 content_block_stop message_delta message_stop\n',
    );
    expect(stream).toContain('  text     same: "Hello from upstream"\n');
    expect(stream).toContain('  stop     same: end\n');
    expect(stream).toContain('  usage    in 11 → 11 · out 3 → 3');
    expect(stream).toContain('  ✓ same status, and the stream ended');

    const chat = blockFor(stdout, ids.chat);
    expect(chat).toContain('  body     same (ids, timestamps and usage not compared)');
    expect(chat).toContain('  ✓ same status');
    expect(blockFor(stdout, ids.refused)).toContain('– skipped: its body was not recorded (refused with 401 before it was read)');
    expect(stdout).toContain('3 replayed requests: 3 matched, 0 did not; 1 skipped.\n');

    // The upstream got the very requests it got when they were recorded.
    const recorded = readEntries(file).slice(0, 3).map((e) => e.attempts![0]!.body.json);
    const replayed = upstream.received.slice(before, before + 3).map((r: Received) => r.json);
    expect(replayed).toEqual(recorded);
  });

  it('--id replays one exchange; --to sends it to another gateway, with the key in the header the client used', async () => {
    const otherLog = tempFile('other.jsonl');
    const other = await startGateway(testConfig(upstream.url), { logFile: otherLog });
    try {
      const v0 = await cli(['replay', file, '--id', ids.v0, '--to', `${other.url}/v1/`, '--no-color']);
      expect(v0.code).toBe(0);
      expect(v0.stdout).toContain(`Replaying 1 exchange of ${file} against ${other.url}\n`);
      expect(v0.stdout).not.toContain(ids.stream);
      const v1 = await cli(['replay', file, '--id', ids.stream, '--to', other.url, '--no-color']);
      expect(v1.code).toBe(0);
      await waitForLines(other, 2);
      await other.close();
      const [first, second] = readEntries(otherLog);
      expect(first!.request!.headers).toMatchObject({ 'x-api-key': '[redacted]', 'anthropic-version': '2023-06-01' });
      expect(first!.request!.headers).not.toHaveProperty('authorization');
      expect(first!.keyGroup).toBe('dev');
      expect(second!.request!.headers).toMatchObject({ authorization: '[redacted]', 'user-agent': expect.stringMatching(/^Anthropic\/JS 1\./) });
      expect(second!.request!.headers).not.toHaveProperty('x-api-key');
    } finally {
      await other.close().catch(() => undefined);
    }
  });

  it('--model sends another model: the Messages stream that went to a Chat model now goes to an Anthropic one', async () => {
    const before = upstream.received.length;
    const { code, stdout } = await cli(['replay', file, '--id', ids.stream, '--model', 'claude-test', '--to', gw.url, '--no-color']);
    expect(code).toBe(0);
    expect(upstream.received.slice(before).map((r) => [r.url, (r.json as { model?: string }).model])).toEqual([['/v1/messages', 'claude-upstream']]);
    const block = blockFor(stdout, ids.stream);
    expect(block).toContain('local-chat → claude-test  stream');
    // The native Anthropic stream puts its ping elsewhere, and reports cache usage.
    expect(block).toContain('  events   recorded: (9) message_start ping content_block_start');
    expect(block).toContain('           replayed: (9) message_start content_block_start ping');
    expect(block).toContain('  text     same: "Hello from upstream"\n');
    expect(block).toContain('  ✓ same status, and the stream ended');
  });

  it('shows what the answer says differently, and exits 0 while the status is the same', async () => {
    upstream.once((req: Received, res: ServerResponse) => {
      sendJson(res, 200, { ...messageJson(String((req.json as { model: string }).model)), content: [{ type: 'text', text: 'Something else', citations: null }], stop_reason: 'max_tokens' });
    });
    const { code, stdout } = await cli(['replay', file, '--id', ids.v0, '--to', gw.url, '--no-color']);
    expect(code).toBe(0);
    const block = blockFor(stdout, ids.v0);
    expect(block).toContain('  text     recorded: "Hello from upstream"\n           replayed: "Something else"\n');
    expect(block).toContain('  stop     recorded: end\n           replayed: max_tokens\n');
    expect(block).toContain('  body     2 differences (ids, timestamps and usage not compared)\n');
    expect(block).toContain('           ~ content[0].text: "Hello from upstream" → "Something else"\n');
    expect(block).toContain('           ~ stop_reason: "end_turn" → "max_tokens"\n');
  });

  it('exits 1 when a replay gets another status', async () => {
    upstream.once((_req, res) => sendJson(res, 400, { error: { message: 'model retired', type: 'invalid_request_error' } }));
    const { code, stdout, stderr } = await cli(['replay', file, '--id', ids.chat, '--to', gw.url, '--no-color']);
    expect(code).toBe(1);
    const block = blockFor(stdout, ids.chat);
    expect(block).toContain('  status   200 → 400\n');
    expect(block).toMatch(/ {2}error {4}recorded: none\n {11}replayed: invalid_request_error: .*model retired/);
    expect(block).toContain('  ✗ status 200 → 400');
    expect(stdout).toContain('1 replayed request: 0 matched, 1 did not.\n');
    expect(stderr).toBe('1 of 1 replayed request did not match (see ✗ above).\n');
  });

  it('exits 1 when a replayed translated stream does not reach its end', async () => {
    upstream.once((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(chatFrames('qwen2.5-coder:7b', true).slice(0, 2).join(''));
    });
    const { code, stdout } = await cli(['replay', file, '--id', ids.stream, '--to', gw.url, '--no-color']);
    expect(code).toBe(1);
    const block = blockFor(stdout, ids.stream);
    expect(block).toContain('  status   200 → 200\n');
    expect(block).toMatch(/ {11}replayed: \(\d+\) message_start ping content_block_start content_block_delta .*error\n/);
    expect(block).toContain('  text     recorded: "Hello from upstream"\n           replayed: "Hello"\n');
    expect(block).toContain('  ✗ the stream did not end with its end event');
  });

  it("finds the gateway from the config's server section when --to is not given", async () => {
    const port = Number(new URL(gw.url).port);
    const cwd = mkdtempSync(join(tmpdir(), 'mgw-replay-cwd-'));
    tempDirs.push(cwd);
    writeFileSync(join(cwd, 'gateway.config.json'), JSON.stringify({ ...testConfig(upstream.url), server: { host: '127.0.0.1', port } }));
    const { code, stdout } = await cli(['replay', file, '--id', ids.chat, '--no-color'], { cwd });
    expect(code).toBe(0);
    expect(stdout).toContain(`against http://127.0.0.1:${port}\n`);
  });

  it('reads only the server section for the address: a provider key not set in this shell does not stop it', async () => {
    const port = Number(new URL(gw.url).port);
    const cwd = mkdtempSync(join(tmpdir(), 'mgw-replay-cwd-'));
    tempDirs.push(cwd);
    const config = testConfig(upstream.url) as { providers: Record<string, Record<string, unknown>> };
    for (const provider of Object.values(config.providers)) provider.apiKey = '${MGW_REPLAY_UNSET_PROVIDER_KEY}';
    writeFileSync(join(cwd, 'gateway.config.json'), JSON.stringify({ ...config, server: { host: '127.0.0.1', port } }));
    const { code, stdout, stderr } = await cli(['replay', file, '--id', ids.chat, '--no-color'], { cwd });
    expect(stderr).not.toContain('MGW_REPLAY_UNSET_PROVIDER_KEY');
    expect(code).toBe(0);
    expect(stdout).toContain(`against http://127.0.0.1:${port}\n`);
  });

  it.each([
    ['a missing file', ['replay', 'nowhere.jsonl'], 1, 'Cannot read the recording nowhere.jsonl: no such file.\n'],
    ['an unknown id', ['replay', '<file>', '--id', 'req_nope'], 1, 'No exchange with id req_nope in <file> (4 recorded).\n'],
    ['a --to that is not a URL', ['replay', '<file>', '--to', '127.0.0.1:8787'], 2, '--to: "127.0.0.1:8787" is not a URL (expected e.g. http://127.0.0.1:8787).\n'],
    ['a --to that is not http', ['replay', '<file>', '--to', 'localhost:8787'], 2, '--to: expected http:// or https://, got "localhost:8787".\n'],
  ])('refuses %s', async (_name, args, exitCode, message) => {
    const { code, stderr } = await cli(args.map((a) => a.replace('<file>', file)));
    expect(code).toBe(exitCode);
    expect(stderr).toBe(message.replace('<file>', file));
  });

  it('exits 1 when nothing could be replayed', async () => {
    const { code, stdout, stderr } = await cli(['replay', file, '--id', ids.refused, '--to', gw.url, '--no-color']);
    expect(code).toBe(1);
    expect(stdout).toContain('0 replayed requests: 0 matched, 0 did not; 1 skipped.\n');
    expect(stderr).toBe('Nothing was replayed: every selected exchange was skipped (see above).\n');
  });

  it.each([
    ['not JSON', '{"truncated": ', 'not JSON (cut short, or damaged)'],
    ['JSON of the wrong shape', '{"hello": "world"}', '"id": missing'],
    ['an exchange with a status that is text', '<chat with status "200">', '"status": expected number, received string'],
    ['an exchange with headers that are a list', '<chat with headers []>', '"request.headers": expected object, received array'],
  ])('skips and reports a line that is %s, replays the others, and exits 1', async (_name, badLine, problem) => {
    const lines = readFileSync(file, 'utf8').split('\n');
    const chat = JSON.parse(lines[2]!) as Record<string, unknown> & { request: object };
    const bad = badLine
      .replace('<chat with status "200">', JSON.stringify({ ...chat, status: '200' }))
      .replace('<chat with headers []>', JSON.stringify({ ...chat, request: { ...chat.request, headers: [] } }));
    const recording = tempFile('bad.jsonl');
    writeFileSync(recording, `${lines[2]}\n${bad}\n${lines[2]}\n`);
    const { code, stdout, stderr } = await cli(['replay', recording, '--to', gw.url, '--no-color']);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `${recording}: 1 line skipped, not an exchange:\n  line 2: ${problem}\n` + `1 line of ${recording} skipped: not an exchange (listed at the start).\n`,
    );
    expect(stdout).toContain('2 replayed requests: 2 matched, 0 did not.\n');
  });

  it('needs a key for requests that carried one (exit 2), and says when no gateway answers (exit 1)', async () => {
    const noKey = await cli(['replay', file, '--to', gw.url], { env: {} });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toBe('No key to send: recordings hold none. Pass --key KEY or set MODEL_GATEWAY_KEY.\n');
    const withFlag = await cli(['replay', file, '--id', ids.chat, '--to', gw.url, '--key', GATEWAY_KEY], { env: {} });
    expect(withFlag.code).toBe(0);

    const port = await closedPort();
    const down = await cli(['replay', file, '--id', ids.chat, '--to', `http://127.0.0.1:${port}`]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`Cannot reach http://127.0.0.1:${port}: ECONNREFUSED. Is the gateway running there?`);
  });
});

// ------------------------------------------------------------------ hostile recordings

describe('replay of a hostile recording sends nothing anywhere but the gateway', () => {
  let gw: TestGateway;
  let chatLine: Record<string, unknown> & { request: { headers: Record<string, unknown> } };
  /** A plain TCP listener on another loopback port: any connection at all, HTTP or not, is a leak. */
  let catcher: NetServer;
  let caught: string[];
  let port: number;

  beforeAll(async () => {
    const recording = tempFile('hostile-source.jsonl');
    gw = await startGateway(testConfig(upstream.url), { logFile: recording });
    await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 }).chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'plain' }] });
    await waitForLines(gw, 1);
    chatLine = (await waitForEntries(recording, 1))[0] as unknown as typeof chatLine;
    caught = [];
    catcher = createNetServer((socket) => {
      const at = caught.push('') - 1;
      socket.on('data', (c: Buffer) => (caught[at] += c.toString('latin1')));
      socket.on('error', () => undefined);
      socket.end();
    });
    await new Promise<void>((r) => catcher.listen(0, '127.0.0.1', r));
    port = (catcher.address() as { port: number }).port;
  });
  afterAll(async () => {
    await gw.close();
    await new Promise<void>((r) => catcher.close(() => r()));
  });

  /** The recorded chat exchange with some fields replaced, as a line. */
  const hostile = (fields: Record<string, unknown>) => JSON.stringify({ ...chatLine, id: `req_hostile_${Math.random().toString(36).slice(2, 8)}`, ...fields });
  const headers = (extra: Record<string, unknown>) => ({ request: { ...chatLine.request, headers: { ...chatLine.request.headers, ...extra } } });
  const lines = () => [
    // Paths that would move the request, key and all, to the catcher if joined to the base URL as text.
    hostile({ path: `@127.0.0.1:${port}/v1/chat/completions` }),
    hostile({ path: `//127.0.0.1:${port}/x` }),
    hostile({ path: `/\\127.0.0.1:${port}` }),
    hostile({ path: `\\\\127.0.0.1:${port}/v1/chat/completions` }),
    hostile({ path: `http://127.0.0.1:${port}/` }),
    hostile({ path: `%2F%2F127.0.0.1:${port}` }),
    hostile({ path: `/%2F%2F127.0.0.1:${port}` }),
    hostile({ path: `/%5c127.0.0.1:${port}` }),
    hostile({ path: `/v1%40127.0.0.1:${port}` }),
    hostile({ path: '/..%2f..%2f' }),
    hostile({ path: '/v1/../../x' }),
    hostile({ path: '/v1/chat completions' }),
    hostile({ path: `/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n` }),
    hostile({ path: '/v1/\tchat/completions' }),
    // Methods that are a request line, a smuggled header, or a tunnel.
    hostile({ method: `GET http://127.0.0.1:${port}/` }),
    hostile({ method: 'POST\r\nX: y' }),
    hostile({ method: 'CONNECT', path: `127.0.0.1:${port}` }),
    hostile({ method: 'CONNECT' }),
    // Header names and values that would add headers (or a whole request) of their own.
    hostile(headers({ 'host: 127.0.0.1': 'x' })),
    hostile(headers({ 'x a': 'b' })),
    hostile(headers({ 'x-a\r\nhost': `127.0.0.1:${port}` })),
    hostile(headers({ 'x-a': `b\r\nhost: 127.0.0.1:${port}` })),
    hostile(headers({ 'x-a': 'b\u0000' })),
  ];

  it.each([
    ['--to', (url: string) => ['--to', url]],
    ['--to with /v1/', (url: string) => ['--to', `${url}/v1/`]],
    ["the config's server address", () => []],
  ])('refuses every hostile exchange, replays the good one, exits 1 (%s)', async (_name, target) => {
    caught.length = 0;
    const cwd = mkdtempSync(join(tmpdir(), 'mgw-hostile-'));
    tempDirs.push(cwd);
    writeFileSync(join(cwd, 'gateway.config.json'), JSON.stringify({ ...testConfig(upstream.url), server: { host: '127.0.0.1', port: Number(new URL(gw.url).port) } }));
    const bad = lines();
    const file = join(cwd, 'hostile.jsonl');
    writeFileSync(file, `${[JSON.stringify(chatLine), ...bad].join('\n')}\n`);
    const before = upstream.received.length;

    const { code, stdout, stderr } = await cli(['replay', file, '--no-color', ...target(gw.url)], { cwd });

    expect(caught).toEqual([]);
    expect(code).toBe(1);
    expect(stdout.match(/✗ refused: /g)).toHaveLength(bad.length);
    expect(stdout).toContain(`1 replayed request: 1 matched, 0 did not; ${bad.length} refused.\n`);
    expect(stderr).toBe(`${bad.length} exchanges refused: a recorded method, path or header that is more than a plain request to the gateway (see ✗ refused above).\n`);
    // The gateway got the good one only, and the upstream behind it the one request.
    expect(upstream.received.length - before).toBe(1);
    // Nothing recorded reaches the terminal raw: no control character but the newlines.
    expect(stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
  });
});
