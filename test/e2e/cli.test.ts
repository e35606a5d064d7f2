/**
 * The CLI through `run(argv, io)` in-process, plus one smoke test of the real
 * `bin/` launcher in a child process (graceful stop on SIGTERM included).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '#src/cli/main.js';
import type { CliIo } from '#src/cli/io.js';
import { chatFrames } from '../helpers/canned.js';
import { startFakeUpstream, writeSlowly, type FakeUpstream } from '../helpers/fake-upstream.js';
import { GATEWAY_KEY, PROVIDER_OPENAI_KEY, testConfig } from '../helpers/start-gateway.js';
import { waitFor } from '../helpers/wait-for.js';

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());

interface Harness {
  io: CliIo;
  stdout: () => string;
  stderr: () => string;
  stop: () => void;
}

function harness(env: Record<string, string | undefined> = {}, cwd = mkdtempSync(join(tmpdir(), 'mgw-cli-'))): Harness {
  let out = '';
  let err = '';
  let stop: (s: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => {
    stop = resolve;
  });
  return {
    io: {
      stdout: { write: (s: string) => (out += s) },
      stderr: { write: (s: string) => (err += s) },
      env,
      cwd,
      stopSignal: () => stopped,
    },
    stdout: () => out,
    stderr: () => err,
    stop: () => stop('SIGTERM'),
  };
}

const urlIn = (text: string) => /listening on (http:\/\/\S+)/.exec(text)?.[1];

function writeConfig(dir: string, config: unknown, name = 'gateway.config.json'): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

describe('model-gateway serve (in-process)', () => {
  it('serves a config file found in the current folder, prints the banner, stops on a signal', async () => {
    const h = harness({ PROVIDER_KEY: PROVIDER_OPENAI_KEY });
    const config = testConfig(upstream.url);
    writeConfig(h.io.cwd, { ...config, providers: { ...config.providers, openai: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: '${PROVIDER_KEY}' } } });
    const exit = run(['serve', '--port', '0', '--no-color'], h.io);
    const url = await waitFor(() => urlIn(h.stdout()), 'the banner');

    const banner = h.stdout();
    expect(banner).toContain(join(h.io.cwd, 'gateway.config.json'));
    expect(banner).toMatch(/groups\s+dev \(1 key: [0-9a-f]{8}; models \*\)/);
    expect(banner).toContain('ci (1 key: ci-bot; models gpt-test, local-*)');
    expect(banner).toMatch(/^clients {3}npx model-gateway claude( --url http:\/\/127\.0\.0\.1:\d+)? \(or codex, gemini\)$/m);
    // The port was given on the command line: the config does not say where `env` would find this gateway.
    expect(banner).toContain(`npx model-gateway env <client> --url ${url}\n`);
    expect(banner).toContain(`${url}/v1 for OpenAI SDKs, ${url} for Anthropic and Google`);
    expect(banner).toContain('key …1234');
    expect(banner).not.toContain(PROVIDER_OPENAI_KEY);
    expect(banner).not.toMatch(/\x1b\[/);

    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(upstream.last().headers.authorization).toBe(`Bearer ${PROVIDER_OPENAI_KEY}`);
    await waitFor(() => (/200 POST \/v1\/chat\/completions gpt-test/.test(h.stdout()) ? true : undefined), 'the log line');

    h.stop();
    expect(await exit).toBe(0);
    expect(h.stdout()).toMatch(/SIGTERM: stopping[\s\S]*stopped/);
  });

  it('runs on the built-in default with a generated key when no config exists', async () => {
    const h = harness({});
    const exit = run(['serve', '--port', '0', '--host', '127.0.0.1'], h.io);
    await waitFor(() => urlIn(h.stdout()), 'the banner');
    const key = /key\s+(mgw-[A-Za-z0-9_-]{20,})/.exec(h.stdout())?.[1];
    expect(key).toBeDefined();
    expect(h.stdout()).toContain('built-in default');
    expect(h.stdout()).toContain('echo (echo, built in)');
    expect(h.stdout()).toContain(`MODEL_GATEWAY_KEY=${key} npx model-gateway claude --url `);
    h.stop();
    expect(await exit).toBe(0);
  });

  it('uses MODEL_GATEWAY_KEY for the default group and never prints it', async () => {
    const h = harness({ MODEL_GATEWAY_KEY: 'my-own-gateway-key-123456' });
    const exit = run(['serve', '--port', '0'], h.io);
    const url = await waitFor(() => urlIn(h.stdout()), 'the banner');
    expect(h.stdout()).not.toContain('my-own-gateway-key-123456');
    const res = await fetch(`${url}/v1/models`, { headers: { authorization: 'Bearer my-own-gateway-key-123456' } });
    expect(((await res.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual(['echo']);
    h.stop();
    expect(await exit).toBe(0);
  });

  it('reports every config problem at once and exits 1', async () => {
    const h = harness({});
    const shape = writeConfig(h.io.cwd, {
      providers: { p: { type: 'openai', apiKey: '${MISSING_KEY}' } },
      models: { m: { provider: 'p', features: ['telepathy'] } },
      keyGroups: { g: { keys: ['k1'], modles: ['*'] } },
    }, 'shape.json');
    expect(await run(['serve', '--config', shape], h.io)).toBe(1);
    expect(h.stderr()).toContain(`Invalid configuration in ${shape}`);
    expect(h.stderr()).toMatch(/providers\.p\.apiKey: .*MISSING_KEY/);
    expect(h.stderr()).toMatch(/models\.m\.features\[0\]: .*telepathy/);
    expect(h.stderr()).toMatch(/keyGroups\.g.*modles/);

    const h2 = harness({});
    const refs = writeConfig(h2.io.cwd, {
      providers: { p: { type: 'openai' } },
      models: { m: { provider: 'nope' } },
      keyGroups: { g: { keys: ['k1'], models: ['ghost'] }, h: { keys: ['k1'] } },
    }, 'refs.yaml');
    expect(await run(['serve', '--config', refs], h2.io)).toBe(1);
    expect(h2.stderr()).toMatch(/models\.m\.provider: .*nope/);
    expect(h2.stderr()).toMatch(/keyGroups\.h\.keys\[0\]: .*g/);
    expect(h2.stderr()).toMatch(/keyGroups\.g\.models\[0\]: .*ghost/);
  });

  it('says when the config file does not exist', async () => {
    const h = harness({});
    expect(await run(['serve', '--config', 'nowhere.json'], h.io)).toBe(1);
    expect(h.stderr()).toMatch(/nowhere\.json/);
  });

  it('says when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const h = harness({});
    try {
      expect(await run(['serve', '--port', String(port)], h.io)).toBe(1);
      expect(h.stderr()).toContain(`Cannot listen on 127.0.0.1:${port}: the port is in use`);
    } finally {
      blocker.close();
    }
  });

  it.each([
    [['--help'], 0, /Usage: model-gateway/],
    [['serve', '--help'], 0, /--log-file <file>/],
    [['serve', '--help'], 0, /--no-log-bodies/],
    [['--version'], 0, /^\d+\.\d+\.\d+/],
    [['serve', '--port', 'eighty'], 2, /expected an integer/],
    [['serve', '--bogus'], 2, /unknown option/],
    [['frobnicate'], 2, /unknown command/],
  ])('%j exits %i', async (argv, code, text) => {
    const h = harness({});
    expect(await run(argv, h.io)).toBe(code);
    expect(h.stdout() + h.stderr()).toMatch(text);
  });
});

/** `bin/model-gateway.js serve --config … --port 0 …args` in a child process, once its banner is out. */
async function spawnServe(args: readonly string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'mgw-bin-'));
  const config = writeConfig(dir, testConfig(upstream.url));
  const bin = new URL('../../bin/model-gateway.js', import.meta.url).pathname;
  const child = spawn(process.execPath, [bin, 'serve', '--config', config, '--port', '0', ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const url = await waitFor(() => urlIn(out), `the banner (output so far: ${out})`);
    return { child, url, exited, output: () => out };
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
}

describe('bin/model-gateway.js (child process)', () => {
  it('serves, then on SIGTERM lets an in-flight stream finish and exits 0', async () => {
    const { child, url, exited, output } = await spawnServe([]);
    try {
      upstream.once(async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        await writeSlowly(res, chatFrames('gpt-upstream', false), 150);
        res.end();
      });
      const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
      const stream = await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true });
      let text = '';
      let signalled = false;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (!signalled) {
          signalled = true;
          child.kill('SIGTERM');
        }
      }
      expect(text).toBe('Hello from upstream');
      expect(await exited).toBe(0);
      expect(output()).toMatch(/SIGTERM: stopping/);
      expect(output()).toMatch(/200 POST \/v1\/chat\/completions gpt-test/);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('serve --log-file FILE --no-log-bodies writes a line of facts per request, without bodies', async () => {
    const logFile = join(mkdtempSync(join(tmpdir(), 'mgw-log-')), 'requests.jsonl');
    const { child, url, exited } = await spawnServe(['--log-file', logFile, '--no-log-bodies']);
    try {
      const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
      await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'not for the log file' }] });
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const text = readFileSync(logFile, 'utf8');
      const lines = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ status: 200, model: 'gpt-test', upstreamModel: 'gpt-upstream' });
      expect(lines[0]).not.toHaveProperty('request');
      expect(text).not.toContain('not for the log file');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
