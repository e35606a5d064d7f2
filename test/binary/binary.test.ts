/**
 * The standalone binary (`npm run build:binary`) as a user runs it: spawned, with real config files in a temp
 * folder, answering the official SDKs on the echo provider. Runs only when MODEL_GATEWAY_BINARY names the
 * executable (CI sets it after building); a name that does not exist fails rather than skips.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BINARY = process.env.MODEL_GATEWAY_BINARY ? resolve(ROOT, process.env.MODEL_GATEWAY_BINARY) : undefined;
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const KEY = 'binary-test-key-0123456789';

/** Echo twice: natively (all protocols), and restricted to Chat so a Messages request is translated. */
const config = {
  providers: { echo: { type: 'echo' }, 'chat-echo': { type: 'echo', protocols: ['chat'] } },
  models: { echo: { provider: 'echo' }, 'echo-chat': { provider: 'chat-echo' } },
  keyGroups: { dev: { keys: [KEY] } },
};

interface Running {
  readonly output: () => string;
  readonly exited: Promise<number | null>;
  readonly kill: (signal: NodeJS.Signals) => void;
}

function start(args: readonly string[], cwd: string): Running {
  const child = spawn(BINARY!, [...args], { cwd, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((res, rej) => {
    child.once('error', rej);
    child.once('exit', (code) => res(code));
  });
  return { output: () => out, exited, kill: (signal) => child.kill(signal) };
}

/** Runs the binary to its end. */
async function runToEnd(args: readonly string[], cwd: string): Promise<{ code: number | null; output: string }> {
  const running = start(args, cwd);
  const code = await running.exited;
  return { code, output: running.output() };
}

/** Starts `serve` and resolves with the URL from its banner; fails with the output if it exits first. */
async function serve(args: readonly string[], cwd: string): Promise<Running & { url: string }> {
  const running = start(['serve', '--port', '0', '--no-color', ...args], cwd);
  let exitedEarly = false;
  void running.exited.then(() => (exitedEarly = true));
  const until = Date.now() + 10_000;
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(running.output())?.[1];
    if (url) return { ...running, url };
    if (exitedEarly || Date.now() > until) {
      running.kill('SIGKILL');
      throw new Error(`no banner from the binary; output:\n${running.output()}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** SIGTERM, then the exit code; the child is killed if it is still there after the grace period. */
async function stop(running: Running): Promise<number | null> {
  running.kill('SIGTERM');
  const timer = setTimeout(() => running.kill('SIGKILL'), 8000);
  try {
    return await running.exited;
  } finally {
    clearTimeout(timer);
  }
}

async function waitForOutput(running: Running, pattern: RegExp): Promise<void> {
  const until = Date.now() + 5000;
  while (!pattern.test(running.output())) {
    if (Date.now() > until) throw new Error(`expected ${pattern} in the output:\n${running.output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const tempDir = () => mkdtempSync(join(tmpdir(), 'mgw-binary-'));

describe.skipIf(BINARY === undefined)('the standalone binary', () => {
  it('exists where MODEL_GATEWAY_BINARY says', () => {
    expect(existsSync(BINARY!), `${BINARY} does not exist: run npm run build:binary`).toBe(true);
  });

  it('prints the package version and its help', async () => {
    const version = await runToEnd(['--version'], tempDir());
    expect(version).toEqual({ code: 0, output: `${VERSION}\n` });
    const help = await runToEnd(['--help'], tempDir());
    expect(help.code).toBe(0);
    expect(help.output).toMatch(/Usage: model-gateway/);
    expect(help.output).toMatch(/serve/);
  });

  it('serves a JSON config: OpenAI SDK on echo, streaming and not, a translated Messages request, SIGTERM exits 0', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'gateway.json'), JSON.stringify(config));
    const gw = await serve(['--config', 'gateway.json'], dir);
    try {
      expect(gw.output()).toContain(`model-gateway ${VERSION} listening on http://127.0.0.1:`);
      expect(gw.output()).toContain(join(dir, 'gateway.json'));

      const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, maxRetries: 0 });
      const chat = await openai.chat.completions.create({ model: 'echo', messages: [{ role: 'user', content: 'plain chat' }] });
      expect(chat.choices[0]?.message.content).toBe('plain chat');
      const stream = await openai.chat.completions.create({
        model: 'echo',
        messages: [{ role: 'user', content: 'streamed chat' }],
        stream: true,
      });
      let streamed = '';
      for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? '';
      expect(streamed).toBe('streamed chat');
      expect((await openai.responses.create({ model: 'echo', input: 'responses too' })).output_text).toBe('responses too');

      const anthropic = new Anthropic({ baseURL: gw.url, apiKey: KEY, maxRetries: 0 });
      const message = await anthropic.messages.create({
        model: 'echo-chat',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'translated' }],
      });
      expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'translated' })]);
      await waitForOutput(gw, /200 POST \/v1\/messages echo-chat → chat-echo\/echo-chat \[messages→chat\]/);
      expect(gw.output()).toMatch(/200 POST \/v1\/chat\/completions echo → echo\/echo/);

      await expect(openai.chat.completions.create({ model: 'echo', messages: [] }, { headers: { authorization: 'Bearer wrong' } })).rejects.toMatchObject({ status: 401 });

      // The inspector page is embedded: the banner's one-time link signs in, and the page's script and styles load.
      const link = /inspector\s+(http:\/\/\S+)/.exec(gw.output())?.[1];
      expect(link, gw.output()).toBeDefined();
      const signIn = await fetch(link!, { redirect: 'manual' });
      const cookie = signIn.headers.get('set-cookie')?.split(';')[0];
      expect(cookie).toBeDefined();
      for (const asset of ['inspector.js', 'inspector.css']) {
        const res = await fetch(new URL(`/_inspector/${asset}`, gw.url), { headers: { cookie: cookie! } });
        expect(res.status, asset).toBe(200);
        expect((await res.text()).length).toBeGreaterThan(1000);
      }
    } finally {
      expect(await stop(gw)).toBe(0);
    }
    expect(gw.output()).toMatch(/SIGTERM: stopping[\s\S]*stopped/);
  });

  it('finds and loads a YAML config in the working folder', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'gateway.config.yaml'),
      ['providers:', '  echo: { type: echo }', 'models:', '  echo-yaml: { provider: echo }', 'keyGroups:', `  dev: { keys: ["${KEY}"] }`, ''].join('\n'),
    );
    const gw = await serve([], dir);
    try {
      expect(gw.output()).toContain(join(dir, 'gateway.config.yaml'));
      const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(((await res.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual(['echo-yaml']);
    } finally {
      expect(await stop(gw)).toBe(0);
    }
  });

  it('loads an ES module config (the binary has its own import() for config files)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'model-gateway.config.mjs'), `export default ${JSON.stringify({ ...config, models: { 'echo-esm': { provider: 'echo' } } })};\n`);
    const gw = await serve([], dir);
    try {
      const models = await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, maxRetries: 0 }).models.list();
      expect(models.data.map((m) => m.id)).toEqual(['echo-esm']);
      expect(gw.output()).not.toMatch(/ExperimentalWarning/);
    } finally {
      expect(await stop(gw)).toBe(0);
    }
  });

  it('exits 1 with every problem of a broken config listed', async () => {
    const dir = tempDir();
    const write = (name: string, value: unknown) => writeFileSync(join(dir, name), JSON.stringify(value));
    write('shape.json', { ...config, models: { b: { provider: 'echo', features: ['telepathy'] } }, extra: true });
    write('refs.json', { ...config, models: { a: { provider: 'nowhere' } } });

    const shape = await runToEnd(['serve', '--config', 'shape.json', '--port', '0'], dir);
    expect(shape.code).toBe(1);
    expect(shape.output).toContain(`Invalid configuration in ${join(dir, 'shape.json')}`);
    expect(shape.output).toMatch(/extra/);
    expect(shape.output).toMatch(/models\.b\.features\[0\]: .*telepathy/);
    expect(shape.output).not.toMatch(/listening on/);

    const refs = await runToEnd(['serve', '--config', 'refs.json', '--port', '0'], dir);
    expect(refs.code).toBe(1);
    expect(refs.output).toMatch(/models\.a\.provider: unknown provider "nowhere"/);
  });
});
