/**
 * The developer commands as a user drives them: `init`, `check [--probe]`, `models`,
 * `keys new` and `env`, through `run(argv, io)` in-process with real files in temp
 * folders, fake providers on loopback and the echo provider; then each once through the
 * real `bin/` launcher in a child process (it runs `dist/`, so build first: `npm test` does).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { closedPort } from '../helpers/http.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { init } from '#src/cli/commands/init.js';
import type { LocalServer } from '#src/cli/detect.js';
import type { CliIo } from '#src/cli/io.js';
import { run } from '#src/cli/main.js';
import { hashKey } from '#src/config/keys.js';
import { loadConfig } from '#src/config/load.js';
import { cannedReply } from '../helpers/canned.js';
import { BEDROCK_API_KEY, BEDROCK_REGION, fakeBedrock } from '../helpers/fake-bedrock.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import type { Received } from '../helpers/received.js';
import { CI_KEY, GATEWAY_KEY, PROVIDER_OPENAI_KEY, startGateway, testConfig, type TestGateway } from '../helpers/start-gateway.js';

const REPO = new URL('../../', import.meta.url).pathname;
const BIN = join(REPO, 'bin', 'model-gateway.js');

interface Harness {
  io: CliIo;
  stdout: () => string;
  stderr: () => string;
  stop: () => void;
}

function harness(env: Record<string, string | undefined> = {}, cwd = tempDir()): Harness {
  let out = '';
  let err = '';
  let stop: (s: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => {
    stop = resolve;
  });
  return {
    io: { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, env, cwd, stopSignal: () => stopped },
    stdout: () => out,
    stderr: () => err,
    stop: () => stop('SIGTERM'),
  };
}

const tempDirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mgw-cmd-'));
  tempDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function writeConfig(dir: string, config: unknown, name = 'gateway.config.json'): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** A table row: its cells separated by runs of spaces (the table helper's alignment). */
const row = (...cells: string[]) => new RegExp(`^\\s*${cells.map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+')}\\s*$`, 'm');

interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
}

function spawnCli(args: string[], opts: { cwd: string; env?: Record<string, string> }): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs `script` in a POSIX shell after `snippet` (the printed export lines), as a user pasting them would. */
function inShell(snippet: string, command: string[], env: Record<string, string>): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `${snippet}\nexec "$@"`, 'sh', ...command], {
      cwd: REPO,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// ------------------------------------------------------------------ fake providers

const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});

/** Answers a forced tool call in the protocol of the path; everything else as the canned provider does. */
function toolAware(req: Received, res: ServerResponse): void {
  if (req.method === 'GET' && req.url === '/v1/models') {
    sendJson(res, 200, { object: 'list', data: [{ id: 'gpt-good', object: 'model' }] });
    return;
  }
  const body = obj(req.json);
  if (body.tools === undefined) {
    cannedReply(req, res);
    return;
  }
  const model = String(body.model);
  const path = req.url.split('?')[0];
  if (path === '/v1/chat/completions') {
    sendJson(res, 200, {
      id: 'chatcmpl-t',
      object: 'chat.completion',
      created: 1,
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          finish_reason: 'tool_calls',
        },
      ],
    });
    return;
  }
  if (path === '/v1/responses') {
    sendJson(res, 200, {
      id: 'resp_t',
      object: 'response',
      status: 'completed',
      model,
      output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' }],
    });
    return;
  }
  sendJson(res, 200, {
    id: 'msg_t',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }],
    stop_reason: 'tool_use',
    usage: { input_tokens: 5, output_tokens: 5 },
  });
}

/** Knows no model "ghost", refuses tools and streaming with 400s, as a limited local server would. */
function picky(req: Received, res: ServerResponse): void {
  const body = obj(req.json);
  if (body.model === 'ghost') sendJson(res, 404, { error: { message: "model 'ghost' not found", type: 'not_found_error' } });
  else if (body.tools !== undefined) sendJson(res, 400, { error: { message: 'this model does not support tools', type: 'invalid_request_error' } });
  else if (body.stream === true) sendJson(res, 400, { error: { message: 'streaming is not supported', type: 'invalid_request_error' } });
  else cannedReply(req, res);
}

/** Answers a forced tool with text (model "chatty"), or is cut at the cap (model "cut"); breaks off a stream (model "broken-stream"). */
function quirky(req: Received, res: ServerResponse): void {
  const body = obj(req.json);
  const text = (finish: string) =>
    sendJson(res, 200, { id: 'c', object: 'chat.completion', model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: 'I would call it' }, finish_reason: finish }] });
  if (body.tools !== undefined && body.model === 'chatty') text('stop');
  else if (body.tools !== undefined && body.model === 'cut') text('length');
  else if (body.stream === true && body.model === 'broken-stream') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'half' }, finish_reason: null }] })}\n\n`);
  } else cannedReply(req, res);
}

let upstream: FakeUpstream;
let quirkyUpstream: FakeUpstream;
let locked: FakeUpstream;
let pickyUpstream: FakeUpstream;
let silent: FakeUpstream;
let deadPort: number;

beforeAll(async () => {
  [upstream, locked, pickyUpstream, silent, quirkyUpstream] = await Promise.all([
    startFakeUpstream(),
    startFakeUpstream(),
    startFakeUpstream(),
    startFakeUpstream(),
    startFakeUpstream(),
  ]);
  upstream.always(toolAware);
  quirkyUpstream.always(quirky);
  locked.always((_req, res) => sendJson(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }));
  pickyUpstream.always(picky);
  silent.always(() => undefined); // never answers
  deadPort = await closedPort();
});
afterAll(() => Promise.all([upstream, locked, pickyUpstream, silent, quirkyUpstream].map((u) => u.close())));

// ------------------------------------------------------------------ init

describe('model-gateway init', () => {
  const cloudEnv = { OPENAI_API_KEY: 'sk-openai-test-0000', ANTHROPIC_API_KEY: 'sk-ant-test-0000', OPENROUTER_API_KEY: 'sk-or-test-0000' };
  const printedKey = (out: string) => /export MODEL_GATEWAY_KEY=(mgw-[A-Za-z0-9_-]{40,})/.exec(out)?.[1];

  it('writes a config from the environment that loads with the real loader and serves with the printed key', async () => {
    const h = harness(cloudEnv);
    expect(await run(['init', '--no-color'], h.io)).toBe(0);
    const file = join(h.io.cwd, 'gateway.config.json');
    const written = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
    expect(written.providers).toMatchObject({
      openai: { type: 'openai', apiKey: '${OPENAI_API_KEY}' },
      anthropic: { type: 'anthropic', apiKey: '${ANTHROPIC_API_KEY}' },
      openrouter: { type: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1', apiKey: '${OPENROUTER_API_KEY}' },
      echo: { type: 'echo' },
    });
    expect(written.models).toMatchObject({ 'gpt-*': { provider: 'openai' }, 'o*': { provider: 'openai' }, 'claude-*': { provider: 'anthropic' }, '*/*': { provider: 'openrouter' }, echo: { provider: 'echo' } });
    expect(written.keyGroups).toEqual({ dev: { keys: ['${MODEL_GATEWAY_KEY}'], models: ['*'] } });
    expect(written.server).toEqual({ host: '127.0.0.1', port: 8787 });
    // Outside a project with model-gateway installed, $schema points at this package's own schema file.
    expect(written.$schema).toBe(new URL('../../schema/gateway.schema.json', import.meta.url).href);
    // The secrets themselves are never written.
    expect(readFileSync(file, 'utf8')).not.toContain('sk-openai-test');

    const key = printedKey(h.stdout());
    expect(key).toBeDefined();
    expect(h.stdout()).toContain(`Wrote ${file}`);
    expect(h.stdout()).toMatch(/Next:\n\s+npx model-gateway check\s+#.*\n\s+npx model-gateway serve\s+#.*\n\s+npx model-gateway claude\s+#.*\n\s+npx model-gateway env claude-code\s+#/);
    expect(h.stdout()).toContain('A new shell needs it again');
    expect(h.stderr()).toMatch(/Looking for local model servers/);

    const env = { ...cloudEnv, MODEL_GATEWAY_KEY: key! };
    const { config } = await loadConfig({ cwd: h.io.cwd, env });
    expect(config.keys.has(hashKey(key!))).toBe(true);

    // The next step it prints works: serve from that folder, call echo with the key.
    const s = harness(env, h.io.cwd);
    const exit = run(['serve', '--port', '0', '--no-color'], s.io);
    const until = Date.now() + 10_000;
    while (!/listening on (http:\S+)/.test(s.stdout()) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const url = /listening on (http:\S+)/.exec(s.stdout())![1]!;
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: key!, maxRetries: 0 });
    const reply = await openai.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'from init' }] });
    expect(reply.choices[0]?.message.content).toBe('from init');
    s.stop();
    expect(await exit).toBe(0);
  });

  it.each([
    [
      'AWS keys and a Google service account, with no region',
      { AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', GOOGLE_APPLICATION_CREDENTIALS: '/nowhere/sa.json', GOOGLE_CLOUD_PROJECT: 'my-project-123' },
      { bedrock: { type: 'bedrock', region: 'us-east-1' }, vertex: { type: 'vertex', region: 'global', project: '${GOOGLE_CLOUD_PROJECT}' } },
      [/bedrock \(Amazon Bedrock, credentials from \$AWS_ACCESS_KEY_ID\)/, /vertex \(Google Vertex AI, credentials from \$GOOGLE_APPLICATION_CREDENTIALS\)/, /no AWS_REGION set: bedrock uses us-east-1/],
    ],
    [
      "a Bedrock API key, a region, and Claude Code's Vertex variables",
      { AWS_BEARER_TOKEN_BEDROCK: 'bedrock-key', AWS_REGION: 'eu-central-1', GOOGLE_APPLICATION_CREDENTIALS: '/nowhere/sa.json', ANTHROPIC_VERTEX_PROJECT_ID: 'p-456789', CLOUD_ML_REGION: 'us-east5' },
      { bedrock: { type: 'bedrock', apiKey: '${AWS_BEARER_TOKEN_BEDROCK}' }, vertex: { type: 'vertex', region: '${CLOUD_ML_REGION}', project: '${ANTHROPIC_VERTEX_PROJECT_ID}' } },
      [/bedrock \(Amazon Bedrock, credentials from \$AWS_BEARER_TOKEN_BEDROCK\)/],
    ],
  ])('offers Bedrock and Vertex for cloud credentials in the environment: %s', async (_name, env, providers, printed) => {
    const h = harness(env);
    expect(await run(['init', '--no-color'], h.io)).toBe(0);
    const written = JSON.parse(readFileSync(join(h.io.cwd, 'gateway.config.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    expect(written.providers).toEqual({ ...providers, echo: { type: 'echo' } });
    // Each cloud's own names for Claude, sent as they are.
    expect(written.models).toMatchObject({ '*anthropic.claude-*': { provider: 'bedrock' }, 'claude-*@*': { provider: 'vertex' } });
    for (const line of printed) expect(h.stdout()).toMatch(line);
    expect(readFileSync(join(h.io.cwd, 'gateway.config.json'), 'utf8')).not.toContain('bedrock-key');
    const key = printedKey(h.stdout())!;
    const { config } = await loadConfig({ cwd: h.io.cwd, env: { ...env, MODEL_GATEWAY_KEY: key } });
    expect([...config.providers.keys()].sort()).toEqual(['bedrock', 'echo', 'vertex']);
  });

  it('never overwrites without --force; --force replaces the file with a new key', async () => {
    const h = harness({});
    expect(await run(['init'], h.io)).toBe(0);
    const file = join(h.io.cwd, 'gateway.config.json');
    const before = readFileSync(file, 'utf8');
    const firstKey = printedKey(h.stdout());

    const again = harness({}, h.io.cwd);
    expect(await run(['init'], again.io)).toBe(1);
    expect(again.stderr()).toContain(`${file} already exists; not overwriting it. Use --force to replace it.`);
    expect(again.stdout()).toBe('');
    expect(readFileSync(file, 'utf8')).toBe(before);

    const forced = harness({}, h.io.cwd);
    expect(await run(['init', '--force'], forced.io)).toBe(0);
    const secondKey = printedKey(forced.stdout());
    expect(secondKey).toBeDefined();
    expect(secondKey).not.toBe(firstKey);
  });

  it('--hash stores only the digest and prints the key once; --dir writes elsewhere and the next steps say where', async () => {
    const h = harness({});
    expect(await run(['init', '--hash', '--dir', 'sub/folder', '--no-color'], h.io)).toBe(0);
    const file = join(h.io.cwd, 'sub', 'folder', 'gateway.config.json');
    const written = JSON.parse(readFileSync(file, 'utf8')) as { keyGroups: { dev: { keys: string[] } } };
    const key = printedKey(h.stdout())!;
    expect(written.keyGroups.dev.keys).toEqual([`sha256:${hashKey(key)}`]);
    expect(readFileSync(file, 'utf8')).not.toContain(key);
    expect(h.stdout()).toContain('shown once');
    expect(h.stdout()).toContain('model-gateway serve --config sub/folder/gateway.config.json');
    // A digest needs no environment variable to load.
    const { config } = await loadConfig({ configPath: file, env: {} });
    expect(config.keys.has(hashKey(key))).toBe(true);
    expect(existsSync(join(h.io.cwd, 'gateway.config.json'))).toBe(false);
  });

  it('keeps an exported MODEL_GATEWAY_KEY instead of generating one, and never prints it', async () => {
    const h = harness({ MODEL_GATEWAY_KEY: 'my-existing-gateway-key-42' });
    expect(await run(['init'], h.io)).toBe(0);
    expect(h.stdout()).toContain('uses the key already in $MODEL_GATEWAY_KEY');
    expect(h.stdout() + h.stderr()).not.toContain('my-existing-gateway-key-42');
    expect(h.stdout()).not.toMatch(/export MODEL_GATEWAY_KEY/);
  });

  it('points $schema at ./node_modules/model-gateway when the project has it installed', async () => {
    const dir = tempDir();
    const schemaDir = join(dir, 'node_modules', 'model-gateway', 'schema');
    mkdirSync(schemaDir, { recursive: true });
    writeFileSync(join(schemaDir, 'gateway.schema.json'), '{}');
    const h = harness({}, dir);
    expect(await run(['init'], h.io)).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'gateway.config.json'), 'utf8')).$schema).toBe('./node_modules/model-gateway/schema/gateway.schema.json');
  });

  it('warns when another config file would be found first', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, '.model-gatewayrc.json'), '{}');
    const h = harness({}, dir);
    expect(await run(['init', '--no-color'], h.io)).toBe(0);
    expect(h.stdout()).toContain(`note: ${join(dir, '.model-gatewayrc.json')} is found before gateway.config.json`);
  });

  it('adds the models of local servers that answer, within the short timeout, and the config they make probes clean', async () => {
    const ollama = await startFakeUpstream();
    const lmstudio = await startFakeUpstream();
    try {
      ollama.always((req, res) =>
        req.method === 'GET' && req.url === '/api/tags'
          ? sendJson(res, 200, { models: [{ name: 'qwen2.5-coder:7b', model: 'qwen2.5-coder:7b' }, { name: 'llama3.2:latest' }] })
          : toolAware(req, res),
      );
      lmstudio.always((req, res) =>
        req.method === 'GET' && req.url === '/v1/models'
          ? sendJson(res, 200, { object: 'list', data: [{ id: 'qwen2.5-coder:7b' }, { id: 'phi 4' }, { id: 'phi-4' }] })
          : toolAware(req, res),
      );
      const servers: LocalServer[] = [
        { id: 'ollama', label: 'Ollama', baseUrl: `${ollama.url}/v1`, listUrls: [`${ollama.url}/api/tags`, `${ollama.url}/v1/models`] },
        { id: 'lmstudio', label: 'LM Studio', baseUrl: `${lmstudio.url}/v1`, listUrls: [`${lmstudio.url}/v1/models`] },
        { id: 'vllm', label: 'vLLM', baseUrl: `http://127.0.0.1:${deadPort}/v1`, listUrls: [`http://127.0.0.1:${deadPort}/v1/models`] },
        { id: 'hung', label: 'Hung', baseUrl: `${silent.url}/v1`, listUrls: [`${silent.url}/v1/models`] },
      ];
      const h = harness({});
      const started = Date.now();
      await init({ color: false }, h.io, { localServers: servers });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(h.stderr()).toContain('Found Ollama (2 models), LM Studio (3 models).');

      const file = join(h.io.cwd, 'gateway.config.json');
      const written = JSON.parse(readFileSync(file, 'utf8')) as { providers: Record<string, unknown>; models: Record<string, unknown> };
      expect(Object.keys(written.providers)).toEqual(['ollama', 'lmstudio', 'echo']);
      expect(written.providers.ollama).toEqual({ type: 'openai-compatible', baseUrl: `${ollama.url}/v1` });
      expect(written.models).toEqual({
        'qwen2.5-coder:7b': { provider: 'ollama', description: expect.stringMatching(/^Ollama on 127\.0\.0\.1:\d+$/), features: ['tools', 'streaming'] },
        'llama3.2:latest': expect.objectContaining({ provider: 'ollama' }),
        // The same name on a second server gets the server's prefix.
        'lmstudio/qwen2.5-coder:7b': expect.objectContaining({ provider: 'lmstudio', upstreamModel: 'qwen2.5-coder:7b' }),
        'phi-4': expect.objectContaining({ provider: 'lmstudio' }),
        echo: expect.objectContaining({ provider: 'echo' }),
      });
      expect(h.stdout()).toContain('skipped LM Studio model "phi 4"');

      // The written file goes straight into check --probe: every local model answers, streams and calls the tool.
      const key = printedKey(h.stdout())!;
      const c = harness({ MODEL_GATEWAY_KEY: key }, h.io.cwd);
      expect(await run(['check', '--probe', '--no-color'], c.io)).toBe(0);
      expect(c.stdout()).toMatch(row('qwen2.5-coder:7b', 'ollama', 'qwen2.5-coder:7b', 'chat', 'ok', 'ok', 'ok'));
      expect(c.stdout()).toMatch(row('lmstudio/qwen2.5-coder:7b', 'lmstudio', 'qwen2.5-coder:7b', 'chat', 'ok', 'ok', 'ok'));
      expect(lmstudio.received.some((r) => r.url === '/v1/chat/completions' && obj(r.json).model === 'qwen2.5-coder:7b')).toBe(true);
    } finally {
      await Promise.all([ollama.close(), lmstudio.close()]);
    }
  });
});

// ------------------------------------------------------------------ check

describe('model-gateway check', () => {
  it('prints providers (credentials masked), models with their routes, and key groups with what they reach', async () => {
    const h = harness({});
    writeConfig(h.io.cwd, testConfig(upstream.url));
    expect(await run(['check', '--no-color'], h.io)).toBe(0);
    const out = h.stdout();
    expect(out).toContain(`config  ${join(h.io.cwd, 'gateway.config.json')}`);
    expect(out).toMatch(row('openai', 'openai', `${upstream.url}/v1`, 'responses, chat', 'key …1234 (Authorization: Bearer)', '2'));
    expect(out).toMatch(row('local', 'openai-compatible', `${upstream.url}/v1`, 'chat', 'none', '2'));
    expect(out).toMatch(row('echo', 'echo', 'built in', 'all', 'not needed', '—'));
    expect(out).not.toContain(PROVIDER_OPENAI_KEY);
    // model, served by, protocols, features, then responses / chat / messages / gemini: native or translated.
    expect(out).toMatch(row('gpt-test', 'openai/gpt-upstream', 'all', 'all', 'native', 'native', '→ responses', '→ responses'));
    expect(out).toMatch(row('local-chat', 'local/qwen2.5-coder:7b', 'all', 'tools, streaming', '→ chat', 'native', '→ chat', '→ chat'));
    expect(out).toMatch(row('chat-only', 'openai/chat-only', 'chat', 'all', '—', 'native', '—', '—'));
    expect(out).toMatch(row('claude-*', 'anthropic (name as sent)', 'all', 'all', '→ messages', '→ messages', 'native', '→ messages'));
    expect(out).toMatch(row('ci', 'ci-bot', 'gpt-test, local-*', 'chat', 'streaming', 'gpt-test, local-chat'));
    expect(out).toMatch(/^\s*dev\s+[0-9a-f]{8}\s+\*\s+all\s+all\s+gpt-test, claude-test, local-chat, no-stream, chat-only, echo, claude-basic-\*, claude-\*$/m);
    expect(out).toContain('✔ The config is valid.');
    expect(out).not.toContain('Warnings');
    expect(h.stderr()).toBe('');
  });

  it('shows what the cloud kinds sign with, and each of several credentials, without warning about a missing apiKey', async () => {
    const h = harness({ KEY_A: 'sk-ant-aaaaaaaaaaaaaaaa1111', KEY_B: 'sk-ant-bbbbbbbbbbbbbbbb2222' });
    writeConfig(h.io.cwd, {
      providers: {
        aws: { type: 'bedrock', region: 'us-east-1', profile: 'prod' },
        gcp: { type: 'vertex', region: 'global', project: 'my-project-123' },
        claude: {
          type: 'anthropic',
          credentials: [
            { name: 'team-a', apiKey: '${KEY_A}', weight: 2 },
            { name: 'team-b', apiKey: '${KEY_B}', priority: 1, limits: { requestsPerMinute: 50 } },
          ],
        },
      },
      models: { 'us.anthropic.claude-*': { provider: 'aws' }, 'claude-*@*': { provider: 'gcp' }, 'claude-*': { provider: 'claude' } },
      keyGroups: { dev: { keys: [GATEWAY_KEY] } },
    });
    expect(await run(['check', '--no-color'], h.io)).toBe(0);
    const out = h.stdout();
    expect(out).toMatch(/aws\s+bedrock\s.*AWS SigV4 \(profile prod\)/);
    expect(out).toMatch(/gcp\s+vertex\s.*Google OAuth token \(application default credentials\)/);
    expect(out).toMatch(/claude\s+anthropic\s.*team-a: key …1111, weight 2; team-b: key …2222, priority 1, 50 requests\/min/);
    expect(out).not.toContain('sk-ant-aaaa');
    expect(out).not.toContain('Warnings');
  });

  it('warns about what is valid but likely unmeant, and still exits 0', async () => {
    const h = harness({});
    writeConfig(h.io.cwd, {
      server: { host: '0.0.0.0' },
      providers: { echo: { type: 'echo' }, spare: { type: 'openai' } },
      models: { echo: { provider: 'echo' }, hidden: { provider: 'echo' } },
      keyGroups: { dev: { keys: [GATEWAY_KEY], models: ['echo'] }, empty: { keys: [], models: ['echo'] } },
    });
    expect(await run(['check', '--no-color'], h.io)).toBe(0);
    const out = h.stdout();
    expect(out).toContain('! server.host: "0.0.0.0" lets other machines reach the gateway');
    expect(out).toContain('! keyGroups.empty.keys: empty, so nobody can use this group');
    expect(out).toContain('! providers.spare: no model uses it');
    expect(out).toContain('! providers.spare.apiKey: not set; OpenAI will refuse the requests');
    expect(out).toContain('! models.hidden: no key group may call it');
    expect(out).toContain('✔ The config is valid (5 warnings).');
  });

  it('shows fallbacks and group limits when the config has them, and warns when serve would refuse to bind', async () => {
    const h = harness({});
    writeConfig(h.io.cwd, {
      server: { host: '0.0.0.0' },
      providers: { echo: { type: 'echo' }, openai: { type: 'openai', apiKey: 'sk-x', retries: 0 } },
      models: { echo: { provider: 'echo' }, gpt: { provider: 'openai', fallbacks: ['echo'] } },
    });
    expect(await run(['check', '--no-color'], h.io)).toBe(0);
    const out = h.stdout();
    expect(out).toMatch(row('openai', 'openai', 'https://api.openai.com/v1', 'responses, chat', 'key set (Authorization: Bearer)', '0'));
    expect(out).toMatch(/^\s*gpt\s+openai\/gpt\s+echo\s+all/m);
    expect(out).toContain('! keyGroups: none configured; serve refuses to listen on 0.0.0.0 without one');

    const limited = harness({});
    writeConfig(limited.io.cwd, {
      providers: { echo: { type: 'echo' } },
      models: { echo: { provider: 'echo' } },
      keyGroups: { dev: { keys: [GATEWAY_KEY], limits: { requestsPerMinute: 60, tokensPerMinute: 100000 } } },
    });
    expect(await run(['check', '--no-color'], limited.io)).toBe(0);
    expect(limited.stdout()).toMatch(/^\s*dev\s.*echo\s+60 req\/min, 100000 tokens\/min$/m);
  });

  it('lists every server limit with the value serve will use, defaults marked, and the group caps', async () => {
    const h = harness({});
    writeConfig(h.io.cwd, {
      server: { maxResponseBytes: 1024 * 1024, keepAliveTimeoutMs: 1500, maxConnections: 200, allowedHosts: ['gw.internal'] },
      providers: { echo: { type: 'echo' } },
      models: { echo: { provider: 'echo' } },
      keyGroups: { dev: { keys: [GATEWAY_KEY], maxOutputTokens: 4096, maxChoices: 2 } },
    });
    expect(await run(['check', '--no-color'], h.io)).toBe(0);
    const out = h.stdout();
    const table: Array<[string, string]> = [
      ['maxBodyBytes', '32 MiB (default)'],
      ['maxResponseBytes', '1 MiB'],
      ['maxConnections', '200'],
      ['keepAliveTimeoutMs', '1500 ms'],
      ['headersTimeoutMs', '30 s (default)'],
      ['authFailuresPerMinute', '30/min (default)'],
      ['maxTools', '1024 (default)'],
      ['allowedHosts', 'gw.internal'],
    ];
    for (const [name, value] of table) expect(out).toMatch(new RegExp(`^\\s*server\\.${name}\\s+${value.replace(/[()]/g, '\\$&')}$`, 'm'));
    expect(out).toMatch(/^\s*dev\s.*≤ 4096 output tokens, n ≤ 2$/m);
  });

  it('reports every problem of a broken config with its path and exits 1', async () => {
    const h = harness({});
    const file = writeConfig(h.io.cwd, {
      providers: { p: { type: 'openai', apiKey: '${MISSING_KEY}' }, q: { type: 'openai-compatible' } },
      models: { m: { provider: 'nope', features: ['telepathy'] } },
      keyGroups: { g: { keys: ['k1'], modles: ['*'] } },
    });
    expect(await run(['check'], h.io)).toBe(1);
    expect(h.stdout()).toBe('');
    expect(h.stderr()).toContain(`Invalid configuration in ${file}`);
    expect(h.stderr()).toMatch(/providers\.p\.apiKey: environment variable MISSING_KEY is not set/);
    expect(h.stderr()).toMatch(/models\.m\.features\[0\]: .*telepathy/);
    expect(h.stderr()).toMatch(/keyGroups\.g.*modles/);

    const bad = harness({});
    writeFileSync(join(bad.io.cwd, 'broken.json'), '{ "providers": ');
    expect(await run(['check', '--config', 'broken.json'], bad.io)).toBe(1);
    expect(bad.stderr()).toMatch(/broken\.json[\s\S]*could not parse/);

    const missing = harness({});
    expect(await run(['check', '-c', 'nowhere.json'], missing.io)).toBe(1);
    expect(missing.stderr()).toContain('config file not found');
  });

  it('checks the built-in default when there is no file, without printing its generated key', async () => {
    const h = harness({});
    expect(await run(['check', '--no-color'], h.io)).toBe(0);
    expect(h.stdout()).toContain('built-in default');
    expect(h.stdout()).toMatch(row('echo', 'echo/echo', 'all', 'all', 'native', 'native', 'native', 'native'));
    expect(h.stdout()).not.toMatch(/mgw-[A-Za-z0-9_-]{40}/);
  });
});

describe('model-gateway check --probe', () => {
  /** Every kind of provider trouble in one config. */
  function troubleConfig() {
    return {
      providers: {
        good: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: PROVIDER_OPENAI_KEY },
        ant: { type: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-ant-probe-secret-9876' },
        locked: { type: 'openai-compatible', baseUrl: `${locked.url}/v1`, apiKey: 'sk-wrong-credential-0000' },
        dead: { type: 'openai-compatible', baseUrl: `http://127.0.0.1:${deadPort}/v1` },
        picky: { type: 'openai-compatible', baseUrl: `${pickyUpstream.url}/v1` },
        quirky: { type: 'openai-compatible', baseUrl: `${quirkyUpstream.url}/v1` },
        unused: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: PROVIDER_OPENAI_KEY },
        echo: { type: 'echo' },
      },
      models: {
        'gpt-good': { provider: 'good' },
        'claude-good': { provider: 'ant', upstreamModel: 'claude-upstream' },
        'claude-*': { provider: 'ant' },
        'mystery-*': { provider: 'ant' },
        'locked-model': { provider: 'locked' },
        'dead-model': { provider: 'dead' },
        ghost: { provider: 'picky' },
        refuser: { provider: 'picky', features: ['tools', 'streaming'] },
        'text-only': { provider: 'picky', features: [] },
        chatty: { provider: 'quirky', features: ['tools'] },
        cut: { provider: 'quirky', features: ['tools'] },
        'broken-stream': { provider: 'quirky', features: ['streaming'] },
        echo: { provider: 'echo' },
      },
      keyGroups: { dev: { keys: [GATEWAY_KEY], models: ['*'] }, named: { keys: [CI_KEY], models: ['claude-named'] } },
    };
  }

  it('finds unreachable providers, refused credentials, missing models and refused features; exit 1', async () => {
    const h = harness({});
    writeConfig(h.io.cwd, troubleConfig());
    for (const u of [upstream, locked, pickyUpstream]) u.received.length = 0;
    expect(await run(['check', '--probe', '--no-color'], h.io)).toBe(1);
    const out = h.stdout();

    expect(out).toMatch(row('good', 'yes', 'accepted'));
    expect(out).toMatch(row('locked', 'yes', 'refused', 'HTTP 401: Incorrect API key provided'));
    expect(out).toMatch(new RegExp(`^\\s*dead\\s+no\\s+\\?\\s+Provider 'dead' is unreachable at http://127\\.0\\.0\\.1:${deadPort} \\(ECONNREFUSED\\)\\.$`, 'm'));
    expect(out).toMatch(row('picky', 'yes', 'none needed'));
    // A provider with no model to try still gets one call: its model list.
    expect(out).toMatch(row('unused', 'yes', 'accepted'));
    expect(out).toMatch(row('echo', 'yes', 'not needed'));

    // The capability matrix: model, provider, sent as, via, reply, stream, tools, note.
    expect(out).toMatch(row('gpt-good', 'good', 'gpt-good', 'responses', 'ok', 'ok', 'ok'));
    expect(out).toMatch(row('claude-good', 'ant', 'claude-upstream', 'messages', 'ok', 'ok', 'ok'));
    // A glob is tried with the exact name a key group gives for it, or skipped with the reason.
    expect(out).toMatch(row('claude-*', 'ant', 'claude-named', 'messages', 'ok', 'ok', 'ok'));
    expect(out).toMatch(/^\s*mystery-\*\s+ant\s+—\s+—\s+skipped\s+skipped\s+skipped\s+a glob: no exact name to try/m);
    expect(out).toMatch(row('locked-model', 'locked', 'locked-model', 'chat', 'skipped', 'skipped', 'skipped', 'credential refused'));
    expect(out).toMatch(row('dead-model', 'dead', 'dead-model', 'chat', 'skipped', 'skipped', 'skipped', 'provider unreachable'));
    expect(out).toMatch(/^\s*ghost\s+picky\s+ghost\s+chat\s+failed\s+skipped\s+skipped\s+model not found \(HTTP 404: model 'ghost' not found\)$/m);
    expect(out).toMatch(/^\s*refuser\s+picky\s+refuser\s+chat\s+ok\s+refused\s+refused\s+stream: HTTP 400: streaming is not supported; tools: HTTP 400: this model does not support tools$/m);
    // Features the model does not declare are not tried.
    expect(out).toMatch(row('text-only', 'picky', 'text-only', 'chat', 'ok', '—', '—'));
    // Answering a forced tool with text is a failure; stopping at the output cap proves nothing either way.
    expect(out).toMatch(row('chatty', 'quirky', 'chatty', 'chat', 'ok', '—', 'failed', 'tools: answered without calling the tool that tool_choice forced'));
    expect(out).toMatch(row('cut', 'quirky', 'cut', 'chat', 'ok', '—', 'unclear', 'tools: stopped at the output cap before calling the tool'));
    expect(out).toMatch(row('broken-stream', 'quirky', 'broken-stream', 'chat', 'ok', 'failed', '—', 'stream: the stream ended before its proper end event'));
    expect(out).toMatch(row('echo', 'echo', 'echo', 'responses', 'ok', 'ok', 'ok'));

    expect(out).toContain('7 problems');
    expect(out).toContain('✖ chatty: declares "tools" but it failed: answered without calling the tool that tool_choice forced');
    expect(out).toContain('✖ broken-stream: declares "streaming" but it failed: the stream ended before its proper end event');
    expect(out).not.toContain('✖ cut');
    expect(out).toContain(`✖ Provider 'dead' is unreachable at http://127.0.0.1:${deadPort} (ECONNREFUSED).`);
    expect(out).toContain('✖ locked: credential refused (HTTP 401: Incorrect API key provided); check providers.locked.apiKey');
    expect(out).toContain("✖ ghost: model not found (HTTP 404: model 'ghost' not found)");
    expect(out).toContain('✖ refuser: declares "streaming" but picky refused it: HTTP 400: streaming is not supported');
    expect(out).toContain('✖ refuser: declares "tools" but picky refused it: HTTP 400: this model does not support tools');
    expect(out).not.toContain('sk-ant-probe-secret-9876');
    expect(out).not.toContain(PROVIDER_OPENAI_KEY);

    // One spinner per provider on stderr (plain lines when not a terminal), and the summary.
    const err = h.stderr();
    for (const line of ['- Probing good (1 model)…', '✔ good: ok', '✖ dead: unreachable', '✖ locked: credential refused', '⚠ picky: 3 problems', '⚠ quirky: 2 problems', '✔ echo: ok']) {
      expect(err).toContain(line);
    }
    expect(err).toContain('check --probe found 7 problems.');
  });

  it('sends tiny, real requests: the provider credential, capped output, a stream, a forced tool', async () => {
    const h = harness({});
    writeConfig(h.io.cwd, {
      providers: {
        good: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: PROVIDER_OPENAI_KEY, protocols: ['chat'] },
        ant: { type: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-ant-probe-secret-9876' },
      },
      models: { 'gpt-chat': { provider: 'good' }, 'claude-x': { provider: 'ant' } },
      keyGroups: { dev: { keys: [GATEWAY_KEY] } },
    });
    upstream.received.length = 0;
    expect(await run(['check', '--probe'], h.io)).toBe(0);
    expect(h.stdout()).toContain('Every provider answered; no problems found.');

    const chat = upstream.received.filter((r) => r.url === '/v1/chat/completions');
    expect(chat.map((r) => obj(r.json))).toEqual([
      expect.objectContaining({ model: 'gpt-chat', max_completion_tokens: 16 }),
      expect.objectContaining({ model: 'gpt-chat', max_completion_tokens: 16, stream: true }),
      expect.objectContaining({
        model: 'gpt-chat',
        max_completion_tokens: 32,
        tools: [expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'get_weather' }) })],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
      }),
    ]);
    for (const r of chat) expect(r.headers.authorization).toBe(`Bearer ${PROVIDER_OPENAI_KEY}`);

    const messages = upstream.received.filter((r) => r.url === '/v1/messages');
    expect(messages).toHaveLength(3);
    expect(obj(messages[0]!.json)).toMatchObject({ model: 'claude-x', max_tokens: 16 });
    expect(obj(messages[2]!.json)).toMatchObject({ max_tokens: 32, tool_choice: { type: 'tool', name: 'get_weather' } });
    for (const r of messages) {
      expect(r.headers['x-api-key']).toBe('sk-ant-probe-secret-9876');
      expect(r.headers['anthropic-version']).toBe('2023-06-01');
      expect(r.headers['user-agent']).toMatch(/^model-gateway\/.* \(check --probe\)$/);
    }
  });

  it('probes a Bedrock model as the gateway sends it (in its envelope, at its stream and whole calls), and says what a kind without a model list cannot prove', async () => {
    const bedrock = await startFakeUpstream();
    bedrock.always(fakeBedrock({ apiKey: BEDROCK_API_KEY }));
    try {
      const h = harness({ BEDROCK_KEY: BEDROCK_API_KEY });
      writeConfig(h.io.cwd, {
        providers: {
          aws: { type: 'bedrock', region: BEDROCK_REGION, baseUrl: bedrock.url, apiKey: '${BEDROCK_KEY}' },
          idle: { type: 'bedrock', region: BEDROCK_REGION, baseUrl: bedrock.url, apiKey: '${BEDROCK_KEY}' },
        },
        models: { 'claude-on-aws': { provider: 'aws', upstreamModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' } },
        keyGroups: { dev: { keys: [GATEWAY_KEY] } },
      });
      expect(await run(['check', '--probe', '--no-color'], h.io)).toBe(0);
      const out = h.stdout();
      expect(out).toMatch(row('aws', 'yes', 'accepted'));
      expect(out).toMatch(/claude-on-aws\s+aws\s+us\.anthropic\.claude-sonnet-4-5-20250929-v1:0\s+messages\s+ok\s+ok\s+ok/);
      expect(out).toMatch(/^\s*idle\s+\?\s+\?\s+no model list to ask; name a model to probe it$/m);
      // The fake refuses a body that is not in Bedrock's envelope; these reached it as Bedrock takes them.
      const paths = bedrock.received.map((r) => r.url);
      expect(paths).toContain('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke');
      expect(paths).toContain('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream');
      for (const r of bedrock.received) expect(r.json).toMatchObject({ anthropic_version: 'bedrock-2023-05-31' });
    } finally {
      await bedrock.close();
    }
  });

  it('gives up on a provider that does not answer after --timeout', async () => {
    const h = harness({});
    writeConfig(h.io.cwd, {
      providers: { slow: { type: 'openai-compatible', baseUrl: `${silent.url}/v1` }, echo: { type: 'echo' } },
      models: { 'slow-model': { provider: 'slow' }, echo: { provider: 'echo' } },
      keyGroups: { dev: { keys: [GATEWAY_KEY] } },
    });
    const started = Date.now();
    expect(await run(['check', '--probe', '--timeout', '300', '--no-color'], h.io)).toBe(1);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(h.stdout()).toMatch(/^\s*slow-model\s+slow\s+slow-model\s+chat\s+failed\s+skipped\s+skipped\s+.*0\.3s/m);
    expect(h.stdout()).toMatch(/✖ slow-model: .*0\.3s/);
    expect(h.stdout()).toMatch(row('echo', 'echo', 'echo', 'responses', 'ok', 'ok', 'ok'));
  });

  it.each([
    [['check', '--timeout', 'soon'], /expected a whole number of milliseconds/],
    [['check', '--timeout', '0'], /expected a whole number of milliseconds/],
  ])('%j is a usage error (exit 2)', async (argv, text) => {
    const h = harness({});
    expect(await run(argv, h.io)).toBe(2);
    expect(h.stderr()).toMatch(text);
  });
});

// ------------------------------------------------------------------ models

describe('model-gateway models', () => {
  it("lists what the key's group may call, with providers, protocols and features both allow", async () => {
    const h = harness({});
    writeConfig(h.io.cwd, testConfig(upstream.url));
    expect(await run(['models', '--key', CI_KEY, '--no-color'], h.io)).toBe(0);
    const out = h.stdout();
    expect(out).toContain(`Key ci-bot of group ci (${join(h.io.cwd, 'gateway.config.json')}) may call:`);
    // ci may use only chat and streaming; local-chat declares tools and streaming.
    expect(out).toMatch(row('gpt-test', 'openai/gpt-upstream', 'chat', 'streaming'));
    expect(out).toMatch(row('local-chat', 'local/qwen2.5-coder:7b', 'chat', 'streaming'));
    expect(out.trim().split('\n')).toHaveLength(4); // title, header, two models
    expect(out + h.stderr()).not.toContain(CI_KEY);
  });

  it('takes the key from MODEL_GATEWAY_KEY and shows globs and descriptions', async () => {
    const h = harness({ MODEL_GATEWAY_KEY: GATEWAY_KEY });
    writeConfig(h.io.cwd, {
      providers: { echo: { type: 'echo' } },
      models: { echo: { provider: 'echo', description: 'Says it back' }, 'claude-*': { provider: 'echo', protocols: ['messages'] } },
      keyGroups: { dev: { keys: [{ name: 'alice', key: GATEWAY_KEY }] } },
    });
    expect(await run(['models', '--no-color'], h.io)).toBe(0);
    expect(h.stdout()).toContain('Key alice of group dev');
    expect(h.stdout()).toMatch(row('echo', 'echo/echo', 'all', 'all', 'Says it back'));
    expect(h.stdout()).toMatch(row('claude-*', 'echo (name as sent)', 'messages', 'all'));
    expect(h.stdout()).toContain('* matches any run of characters');
  });

  it('an unknown key is exit 1 (named by its short id, never printed); no key at all is exit 2', async () => {
    const h = harness({});
    writeConfig(h.io.cwd, testConfig(upstream.url));
    expect(await run(['models', '--key', 'not-a-configured-key-777'], h.io)).toBe(1);
    expect(h.stderr()).toContain(`This key (id ${hashKey('not-a-configured-key-777').slice(0, 8)}) is not in any key group of`);
    expect(h.stdout() + h.stderr()).not.toContain('not-a-configured-key-777');

    const none = harness({}, h.io.cwd);
    expect(await run(['models'], none.io)).toBe(2);
    expect(none.stderr()).toContain('No key to look up: pass --key KEY or set MODEL_GATEWAY_KEY.');
  });
});

// ------------------------------------------------------------------ keys new

describe('model-gateway keys new', () => {
  it('prints the key, its sha256: form and a config entry that works, and nothing else on stdout', async () => {
    const h = harness({});
    expect(await run(['keys', 'new', '--group', 'ci', '--name', 'ci-runner'], h.io)).toBe(0);
    const [key, digest, entry, ...rest] = h.stdout().split('\n');
    expect(rest).toEqual(['']);
    expect(key).toMatch(/^mgw-[A-Za-z0-9_-]{43}$/);
    expect(digest).toBe(`sha256:${hashKey(key!)}`);
    expect(JSON.parse(entry!)).toEqual({ name: 'ci-runner', key: digest });
    expect(h.stderr()).toContain('keyGroups.ci.keys');

    // Pasted into a config, the entry admits the key.
    const dir = tempDir();
    writeConfig(dir, { providers: { echo: { type: 'echo' } }, models: { echo: { provider: 'echo' } }, keyGroups: { ci: { keys: [JSON.parse(entry!)] } } });
    const { config } = await loadConfig({ cwd: dir, env: {} });
    expect(config.keys.get(hashKey(key!))).toMatchObject({ name: 'ci-runner', group: 'ci' });

    const plain = harness({});
    expect(await run(['keys', 'new'], plain.io)).toBe(0);
    const lines = plain.stdout().trim().split('\n');
    expect(JSON.parse(lines[2]!)).toBe(lines[1]);
    expect(lines[0]).not.toBe(key);
  });

  it('sends its help to stderr; `keys` without a subcommand is a usage error', async () => {
    const h = harness({});
    expect(await run(['keys', 'new', '--help'], h.io)).toBe(0);
    expect(h.stdout()).toBe('');
    expect(h.stderr()).toMatch(/Usage: model-gateway keys new[\s\S]*Examples:/);

    const bare = harness({});
    expect(await run(['keys'], bare.io)).toBe(2);
  });
});

// ------------------------------------------------------------------ env

describe('model-gateway env', () => {
  const localConfig = {
    server: { host: '0.0.0.0', port: 9911 },
    providers: { echo: { type: 'echo' } },
    models: { 'qwen-coder': { provider: 'echo' }, echo: { provider: 'echo' } },
    keyGroups: { dev: { keys: [GATEWAY_KEY] }, ci: { keys: [CI_KEY], models: ['echo'] } },
  };

  it('claude-code: exports with the base URL from the config, and every model variable when Claude names do not route', async () => {
    const h = harness({ MODEL_GATEWAY_KEY: GATEWAY_KEY });
    writeConfig(h.io.cwd, localConfig);
    expect(await run(['env', 'claude-code'], h.io)).toBe(0);
    expect(h.stdout()).toBe(
      [
        '# Claude Code → model-gateway at http://127.0.0.1:9911: run these in the shell that starts `claude`',
        `# The config does not route Claude's own model names, so every model variable names "qwen-coder" (pick another with --model).`,
        'export ANTHROPIC_BASE_URL=http://127.0.0.1:9911',
        'export ANTHROPIC_AUTH_TOKEN="$MODEL_GATEWAY_KEY"',
        'export ANTHROPIC_MODEL=qwen-coder',
        'export ANTHROPIC_SMALL_FAST_MODEL=qwen-coder',
        'export ANTHROPIC_DEFAULT_OPUS_MODEL=qwen-coder',
        'export ANTHROPIC_DEFAULT_SONNET_MODEL=qwen-coder',
        'export ANTHROPIC_DEFAULT_HAIKU_MODEL=qwen-coder',
        'export DISABLE_TELEMETRY=1',
        'export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1',
        '',
      ].join('\n'),
    );
    expect(h.stderr()).toContain('refer to $MODEL_GATEWAY_KEY (set in this shell)');
    expect(h.stdout()).not.toContain(GATEWAY_KEY);
  });

  it('codex: the config.toml block and the export; --key and --model go in as given', async () => {
    const h = harness({});
    writeConfig(h.io.cwd, localConfig);
    expect(await run(['env', 'codex', '--key', GATEWAY_KEY, '--model', 'echo'], h.io)).toBe(0);
    expect(h.stdout()).toBe(
      [
        '# Codex: put this in ~/.codex/config.toml (or $CODEX_HOME/config.toml); model and model_provider go before any [table]',
        'model = "echo"',
        'model_provider = "model-gateway"',
        '',
        '[model_providers.model-gateway]',
        'name = "model-gateway"',
        'base_url = "http://127.0.0.1:9911/v1"',
        'env_key = "MODEL_GATEWAY_API_KEY"',
        'wire_api = "responses"',
        '',
        '# and start codex where MODEL_GATEWAY_API_KEY holds the gateway key:',
        `export MODEL_GATEWAY_API_KEY=${GATEWAY_KEY}`,
        '',
      ].join('\n'),
    );
    expect(h.stderr()).toBe('');
  });

  it('gemini-cli: the settings.json auth type and telemetry switch, then the exports, GEMINI_MODEL always', async () => {
    const h = harness({ MODEL_GATEWAY_KEY: GATEWAY_KEY });
    writeConfig(h.io.cwd, localConfig);
    expect(await run(['env', 'gemini-cli'], h.io)).toBe(0);
    expect(h.stdout()).toBe(
      [
        '# Gemini CLI → model-gateway at http://127.0.0.1:9911: put this in ~/.gemini/settings.json (merged into what it holds)',
        `# GEMINI_MODEL names "qwen-coder": on its default (auto) the CLI picks models by Google's names (pick another with --model).`,
        '{',
        '  "security": { "auth": { "selectedType": "gemini-api-key" } },',
        '  "privacy": { "usageStatisticsEnabled": false }',
        '}',
        '',
        '# and run these in the shell that starts `gemini`:',
        'export GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9911',
        'export GEMINI_API_KEY="$MODEL_GATEWAY_KEY"',
        'export GEMINI_MODEL=qwen-coder',
        '',
      ].join('\n'),
    );
    expect(h.stderr()).toContain('refer to $MODEL_GATEWAY_KEY (set in this shell)');
    expect(h.stdout()).not.toContain(GATEWAY_KEY);
    // The settings lines are the JSON the CLI reads.
    const json = h.stdout().split('\n').slice(2, 6).join('\n');
    expect(JSON.parse(json)).toEqual({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } });
  });

  /** Gemini-named models besides localConfig's: one Gemini callers may not use, one they may, and a glob. */
  const geminiModels = {
    ...localConfig,
    models: {
      'gemini-chat-only': { provider: 'echo', protocols: ['chat'] },
      ...localConfig.models,
      'gemini-local': { provider: 'echo' },
      'gemini-*': { provider: 'echo' },
    },
  };
  it.each([
    ['--key and --model go in as given', localConfig, ['--key', GATEWAY_KEY, '--model', 'echo'], GATEWAY_KEY, 'echo'],
    ['the first gemini-* model served to Gemini callers', geminiModels, [], undefined, 'gemini-local'],
    ['the first model served to Gemini callers when none is named gemini-*', localConfig, [], undefined, 'qwen-coder'],
    ['the first model the key may call', geminiModels, ['--key', CI_KEY], CI_KEY, 'echo'],
    [
      "the CLI's own Pro model when no exact model is served to Gemini callers",
      { ...localConfig, models: { 'gemini-*': { provider: 'echo' } }, keyGroups: { dev: { keys: [GATEWAY_KEY] } } },
      [],
      undefined,
      'gemini-3.1-pro-preview',
    ],
  ])('gemini-cli: GEMINI_MODEL is %s', async (_name, config, argv, key, model) => {
    const h = harness({});
    writeConfig(h.io.cwd, config);
    expect(await run(['env', 'gemini-cli', ...argv], h.io)).toBe(0);
    expect(h.stdout().split('\n').filter((l) => l.startsWith('export '))).toEqual([
      'export GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9911',
      `export GEMINI_API_KEY=${key ?? '"$MODEL_GATEWAY_KEY"'}`,
      `export GEMINI_MODEL=${model}`,
    ]);
    // Said in a comment, unless it was asked for.
    expect(h.stdout().includes(`# GEMINI_MODEL names "${model}"`)).toBe(!(argv as string[]).includes('--model'));
  });

  it("gemini-cli: without a config, GEMINI_MODEL names the CLI's own Pro model", async () => {
    const h = harness({});
    expect(await run(['env', 'gemini-cli', '--url', 'http://gateway.test:9000'], h.io)).toBe(0);
    expect(h.stdout()).toContain('\nexport GEMINI_MODEL=gemini-3.1-pro-preview\n');
  });

  it('openai, anthropic and shell: the SDK variables; --url overrides the config and drops a /v1', async () => {
    const h = harness({});
    writeConfig(h.io.cwd, localConfig);
    expect(await run(['env', 'openai'], h.io)).toBe(0);
    expect(h.stdout()).toContain('export OPENAI_BASE_URL=http://127.0.0.1:9911/v1\nexport OPENAI_API_KEY="$MODEL_GATEWAY_KEY"\n');
    expect(h.stderr()).toContain('$MODEL_GATEWAY_KEY is not set in this shell');

    const a = harness({});
    expect(await run(['env', 'anthropic', '--url', 'http://gateway.test:9000/v1/'], a.io)).toBe(0);
    expect(a.stdout()).toContain('export ANTHROPIC_BASE_URL=http://gateway.test:9000\nexport ANTHROPIC_API_KEY="$MODEL_GATEWAY_KEY"\n');

    const s = harness({});
    writeConfig(s.io.cwd, { ...localConfig, models: { ...localConfig.models, 'claude-*': { provider: 'echo' } } });
    expect(await run(['env', 'shell', '--key', GATEWAY_KEY], s.io)).toBe(0);
    const names = [...s.stdout().matchAll(/^export (\w+)=/gm)].map((m) => m[1]);
    expect(names).toEqual([
      'ANTHROPIC_BASE_URL',
      'ANTHROPIC_AUTH_TOKEN',
      'DISABLE_TELEMETRY',
      'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC',
      'OPENAI_BASE_URL',
      'OPENAI_API_KEY',
      'MODEL_GATEWAY_API_KEY',
    ]);
  });

  it.each([
    [['env', 'cursor'], 2, /'cursor' is invalid for argument 'client'\. Allowed choices are claude-code, codex, gemini-cli, openai, anthropic, shell/],
    [['env'], 2, /missing required argument 'client'/],
    [['env', 'openai', '--url', 'not a url'], 2, /--url: "not a url" is not a URL/],
    [['env', 'openai', '--model', 'ghost'], 1, /--model: "ghost" is not a model of/],
    [['env', 'openai', '--key', 'unknown-key-xyz'], 1, /--key: this key \(id [0-9a-f]{8}\) is not in any key group/],
    [['env', 'codex', '--key', CI_KEY, '--model', 'qwen-coder'], 1, /key group "ci" may not call "qwen-coder"/],
  ])('%j exits %i', async (argv, code, text) => {
    const h = harness({});
    writeConfig(h.io.cwd, localConfig);
    expect(await run(argv, h.io)).toBe(code);
    expect(h.stderr()).toMatch(text);
    expect(h.stderr()).not.toContain('unknown-key-xyz');
  });

  it('status and stop read only the server section: a provider key unset in this shell does not stop them', async () => {
    const h = harness({});
    writeConfig(h.io.cwd, {
      server: { port: 0, dataDir: join(h.io.cwd, 'data') },
      providers: { openai: { type: 'openai', apiKey: '${MGW_STATUS_UNSET_KEY}' } },
      models: { 'gpt-x': { provider: 'openai' } },
    });
    expect(await run(['status'], h.io)).toBe(0);
    expect(h.stdout()).toBe('no gateway running\n');
    expect(await run(['stop'], h.io)).toBe(3);
    expect(h.stderr()).toContain('no background gateway is running');
    expect(h.stderr()).not.toContain('MGW_STATUS_UNSET_KEY');
  });

  it('prints the lines for a key given without a config file, saying that it was not checked', async () => {
    const h = harness({});
    expect(await run(['env', 'openai', '--key', 'any-key-123'], h.io)).toBe(0);
    expect(h.stdout()).toContain('export OPENAI_API_KEY=any-key-123');
    expect(h.stderr()).toContain('No config file here: the key is not checked.');
  });

  it('needs --url when the config lets serve pick the port', async () => {
    const h = harness({});
    writeConfig(h.io.cwd, { ...localConfig, server: { port: 0 } });
    expect(await run(['env', 'openai'], h.io)).toBe(1);
    expect(h.stderr()).toContain('server.port is 0');
    const withUrl = harness({}, h.io.cwd);
    expect(await run(['env', 'openai', '--url', 'http://127.0.0.1:4444'], withUrl.io)).toBe(0);
  });

  describe('the printed lines, run in a real shell, reach a running gateway', () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await startGateway({ providers: { echo: { type: 'echo' } }, models: { echo: { provider: 'echo' } }, keyGroups: { dev: { keys: [GATEWAY_KEY] } } });
    });
    afterAll(() => gw.close());

    const script = {
      openai: `import OpenAI from 'openai';
const r = await new OpenAI({ maxRetries: 0 }).chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'hello via openai env' }] });
console.log(r.choices[0].message.content);`,
      anthropic: `import Anthropic from '@anthropic-ai/sdk';
const r = await new Anthropic({ maxRetries: 0 }).messages.create({ model: 'echo', max_tokens: 64, messages: [{ role: 'user', content: 'hello via anthropic env' }] });
console.log(r.content[0].text);`,
      // Google's SDK reads GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY itself; GEMINI_MODEL is the CLI's, read here for it.
      gemini: `import { GoogleGenAI } from '@google/genai';
const r = await new GoogleGenAI({}).models.generateContent({ model: process.env.GEMINI_MODEL, contents: 'hello via gemini-cli env' });
console.log(r.text);`,
    };

    it.each([
      ['openai', [], 'hello via openai env'],
      ['anthropic', [], 'hello via anthropic env'],
      ['shell', ['--key', GATEWAY_KEY], 'hello via openai env'],
      ['shell', ['--key', GATEWAY_KEY], 'hello via anthropic env'],
      ['gemini-cli', ['--model', 'echo'], 'hello via gemini-cli env'],
    ] as const)('env %s %j', async (client, extra, expected) => {
      const h = harness({});
      expect(await run(['env', client, '--url', gw.url, ...extra], h.io)).toBe(0);
      const sdk = expected.includes('openai') ? 'openai' : expected.includes('anthropic') ? 'anthropic' : 'gemini';
      // The Gemini CLI's settings.json lines are for its file, not the shell: only its export lines run.
      const snippet = client === 'gemini-cli' ? h.stdout().split('\n').filter((l) => l.startsWith('export ')).join('\n') : h.stdout();
      // Only the printed lines (plus MODEL_GATEWAY_KEY, which they refer to without --key) tell the SDK where to go.
      const result = await inShell(snippet, [process.execPath, '--input-type=module', '-e', script[sdk]], { MODEL_GATEWAY_KEY: GATEWAY_KEY });
      expect(result.stderr).toBe('');
      expect(result.stdout.trim()).toBe(expected);
    });
  });
});

// ------------------------------------------------------------------ help

describe('--help of every command', () => {
  it.each([
    [['init', '--help'], /--dir <dir>[\s\S]*--force[\s\S]*--hash[\s\S]*Examples:\n {2}\$ npx model-gateway init/],
    [['check', '--help'], /--config <file>[\s\S]*--probe[\s\S]*--timeout <ms>[\s\S]*Examples:\n {2}\$ npx model-gateway check/],
    [['models', '--help'], /--key <key>[\s\S]*--config <file>[\s\S]*Examples:\n {2}\$ npx model-gateway models/],
    [['env', '--help'], /<client>[\s\S]*--key <key>[\s\S]*--model <model>[\s\S]*--url <url>[\s\S]*Examples:\n {2}\$ eval "\$\(npx model-gateway env claude-code\)"/],
    [['--help'], /init[\s\S]*check[\s\S]*models[\s\S]*keys[\s\S]*env/],
  ])('%j', async (argv, text) => {
    const h = harness({});
    expect(await run(argv, h.io)).toBe(0);
    expect(h.stdout()).toMatch(text);
  });
});

// ------------------------------------------------------------------ the real launcher

describe('bin/model-gateway.js (child process), each command once', () => {
  it('init writes a config that check accepts; models and env read it; keys new prints only the key lines', async () => {
    const dir = tempDir();
    const initRun = await spawnCli(['init'], { cwd: dir, env: { ANTHROPIC_API_KEY: 'sk-ant-spawned-0000' } });
    expect(initRun.code, initRun.stderr).toBe(0);
    const key = /export MODEL_GATEWAY_KEY=(\S+)/.exec(initRun.stdout)?.[1];
    expect(key).toBeDefined();
    expect(initRun.stdout).not.toMatch(/\x1b\[/); // not a terminal: no colour

    const env = { ANTHROPIC_API_KEY: 'sk-ant-spawned-0000', MODEL_GATEWAY_KEY: key! };
    const checkRun = await spawnCli(['check'], { cwd: dir, env });
    expect(checkRun.code, checkRun.stderr).toBe(0);
    expect(checkRun.stdout).toMatch(row('claude-*', 'anthropic (name as sent)', 'all', 'all', '→ messages', '→ messages', 'native', '→ messages'));
    expect(checkRun.stdout).not.toContain('sk-ant-spawned-0000');

    const modelsRun = await spawnCli(['models'], { cwd: dir, env });
    expect(modelsRun.code, modelsRun.stderr).toBe(0);
    expect(modelsRun.stdout).toMatch(row('claude-*', 'anthropic (name as sent)', 'all', 'all'));
    expect(modelsRun.stdout).not.toContain(key!);

    const envRun = await spawnCli(['env', 'anthropic'], { cwd: dir, env });
    expect(envRun.code, envRun.stderr).toBe(0);
    expect(envRun.stdout).toContain('export ANTHROPIC_BASE_URL=http://127.0.0.1:8787\n');

    const keysRun = await spawnCli(['keys', 'new', '--name', 'bot'], { cwd: dir });
    expect(keysRun.code).toBe(0);
    const lines = keysRun.stdout.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^mgw-/);
    expect(keysRun.stderr).toContain('keyGroups.<group>.keys');

    const again = await spawnCli(['init'], { cwd: dir, env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
  });

  it('check --probe against the echo provider exits 0; against a closed port exits 1', async () => {
    const dir = tempDir();
    writeConfig(dir, { providers: { echo: { type: 'echo' } }, models: { echo: { provider: 'echo' } }, keyGroups: { dev: { keys: [GATEWAY_KEY] } } });
    const good = await spawnCli(['check', '--probe'], { cwd: dir });
    expect(good.code, good.stdout + good.stderr).toBe(0);
    expect(good.stdout).toMatch(row('echo', 'echo', 'echo', 'responses', 'ok', 'ok', 'ok'));
    expect(good.stderr).toContain('✔ echo: ok');

    writeConfig(dir, { providers: { gone: { type: 'openai-compatible', baseUrl: `http://127.0.0.1:${deadPort}/v1` } }, models: { m: { provider: 'gone' } }, keyGroups: { dev: { keys: [GATEWAY_KEY] } } }, 'dead.json');
    const bad = await spawnCli(['check', '--probe', '--config', 'dead.json'], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(`✖ Provider 'gone' is unreachable at http://127.0.0.1:${deadPort} (ECONNREFUSED).`);
    expect(bad.stderr).toContain('check --probe found 1 problem.');
  });
});
