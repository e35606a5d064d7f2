/**
 * The process around the gateway, in child processes through the real `bin/` launcher (it runs
 * `dist/`, so build first: `npm test` does): what happens when its stdout goes away, and that
 * stopping the command stops the server however it was started, npm in between included.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { GATEWAY_KEY, testConfig } from '../helpers/start-gateway.js';

const REPO = new URL('../..', import.meta.url).pathname;
const BIN = join(REPO, 'bin/model-gateway.js');

let upstream: FakeUpstream;
const children: ChildProcess[] = [];
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await upstream.close();
});

function configDir(): { dir: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mgw-life-'));
  const config = join(dir, 'gateway.config.json');
  writeFileSync(config, JSON.stringify(testConfig(upstream.url)));
  return { dir, config };
}

const env = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...extra });

interface Running {
  readonly child: ChildProcess;
  /** stdout and stderr so far. */
  readonly output: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `ownGroup`: in a process group of its own, as a terminal's foreground job is. */
function start(command: string, args: readonly string[], cwd: string, extraEnv: Record<string, string> = {}, ownGroup = false): Running {
  const child = spawn(command, args, { cwd, env: env(extraEnv), stdio: ['ignore', 'pipe', 'pipe'], detached: ownGroup });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => out, exited };
}

async function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  for (const until = Date.now() + timeoutMs; ; ) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const urlIn = (text: string) => /listening on (http:\/\/\S+)/.exec(text)?.[1];

/** Whether something accepts connections at `url`. */
const listening = (url: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

const chat = (url: string, content: string) =>
  new OpenAI({ baseURL: `${url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 }).chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content }] });

/** Node's report of an error nobody handled. */
const CRASH = /Unhandled 'error' event|EPIPE|ERR_STREAM_DESTROYED|\n\s+at /;

describe('a closed stdout', () => {
  it('serve | head -2: the gateway keeps serving, the log file keeps its lines, nothing crashes', async () => {
    const { dir, config } = configDir();
    const logFile = join(dir, 'requests.jsonl');
    const child = spawn(process.execPath, [BIN, 'serve', '--config', config, '--port', '0', '--no-color', '--log-file', logFile], {
      cwd: dir,
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    // The reader takes two lines, as `head -2` would, and closes its end of the pipe.
    const url = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (c: Buffer) => {
        text += c.toString();
        const lines = text.split('\n');
        if (lines.length > 2) {
          child.stdout.destroy();
          const found = urlIn(lines[0]!);
          if (found) resolve(found);
          else reject(new Error(`no URL in ${lines[0]}`));
        }
      });
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let gone = false;
    void exited.then(() => (gone = true));

    // Enough traffic for many log lines to hit the closed pipe, in several batches.
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => chat(url, `round ${round} #${i}`)));
      for (const a of answers) expect(a.choices[0]?.message.content).toBe('Hello from upstream');
      await new Promise((r) => setTimeout(r, 30));
    }
    await waitFor(() => (gone || /stdout closed/.test(stderr) ? true : undefined), 'the notice that stdout closed');
    expect(gone).toBe(false);
    expect(stderr).not.toMatch(CRASH);
    expect(stderr).toMatch(/stdout closed/);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = readFileSync(logFile, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(20);
  });

  it.each([
    [['check'], 0],
    [['models'], 0],
    [['env', 'shell'], 0],
    [['keys', 'new'], 0],
    [['--help'], 0],
    // Lines that are not exchanges: exit code 1, as with its stdout open.
    [['replay', 'recording.jsonl', '--to', 'http://127.0.0.1:9'], 1],
  ])('%j with its stdout closed before it writes ends quietly, exit code %i', async (args, exitCode) => {
    const { dir, config } = configDir();
    writeFileSync(join(dir, 'recording.jsonl'), `${JSON.stringify({ id: 'req_1', time: 0 })}\n`.repeat(50));
    const withConfig = ['check', 'models'].includes(args[0]!) ? [...args, '--config', config] : args;
    const run = start(process.execPath, [BIN, ...withConfig], dir, { MODEL_GATEWAY_KEY: GATEWAY_KEY });
    run.child.stdout!.destroy();
    const { code, signal } = await run.exited;
    expect(run.output()).not.toMatch(CRASH);
    expect({ code, signal }).toEqual({ code: exitCode, signal: null });
  });
});

describe('stopping', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)('bin/model-gateway.js serve stops gracefully on %s and frees its port', async (sig) => {
    const { dir, config } = configDir();
    const run = start(process.execPath, [BIN, 'serve', '--config', config, '--port', '0', '--no-color'], dir);
    const url = await waitFor(() => urlIn(run.output()), 'the banner');
    expect((await chat(url, 'before')).choices[0]?.message.content).toBe('Hello from upstream');
    run.child.kill(sig);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.output()).toMatch(new RegExp(`${sig}: stopping[\\s\\S]*stopped`));
    expect(await listening(url)).toBe(false);
  });

  /** A project with model-gateway installed (a link to this checkout), as `npx model-gateway` finds it. */
  function project(): string {
    const { dir, config } = configDir();
    mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
    symlinkSync(REPO, join(dir, 'node_modules/model-gateway'));
    symlinkSync('../model-gateway/bin/model-gateway.js', join(dir, 'node_modules/.bin/model-gateway'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'uses-gateway', version: '1.0.0', private: true, dependencies: { 'model-gateway': '*' } }));
    writeFileSync(join(dir, 'config-path'), config);
    return dir;
  }

  /** Processes whose command line names `dir`: a gateway left behind by a failing run must not outlive the test. */
  function killLeftIn(dir: string): void {
    const lines = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
    for (const line of lines) {
      const m = /^\s*(\d+)\s+(.*)$/.exec(line);
      if (m && m[2]!.includes(dir)) process.kill(Number(m[1]), 'SIGKILL');
    }
  }

  it.each([
    // SIGTERM: npm passes it to its shell, which dies without passing it on. SIGKILL: npm passes nothing.
    ['SIGTERM', 'npm exec'],
    ['SIGKILL', 'npm exec'],
    ['SIGHUP', 'npm exec'],
    ['SIGTERM', 'npx'],
    // Ctrl-C in a terminal: the whole process group gets it.
    ['SIGINT to the group', 'npm exec'],
  ] as const)('%s to %s model-gateway serve stops the gateway too', async (sig, launcher) => {
    const dir = project();
    const config = readFileSync(join(dir, 'config-path'), 'utf8');
    const serveArgs = ['model-gateway', 'serve', '--config', config, '--port', '0', '--no-color'];
    const args = launcher === 'npx' ? ['npx', '--offline', '--no-install', ...serveArgs] : ['npm', 'exec', '--offline', '--', ...serveArgs];
    const group = sig === 'SIGINT to the group';
    const run = start(args[0]!, args.slice(1), dir, { npm_config_update_notifier: 'false', npm_config_fund: 'false' }, group);
    onTestFinished(() => killLeftIn(dir));
    const url = await waitFor(() => urlIn(run.output()), `the banner (so far: ${run.output()})`, 30_000);
    expect((await chat(url, 'before')).choices[0]?.message.content).toBe('Hello from upstream');
    if (group) process.kill(-run.child.pid!, 'SIGINT');
    else run.child.kill(sig);
    await run.exited;
    // The gateway, npm's grandchild, notices within a couple of seconds and stops.
    const until = Date.now() + 8000;
    while ((await listening(url)) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(await listening(url)).toBe(false);
    expect(run.output()).not.toMatch(CRASH);
  }, 45_000);
});
