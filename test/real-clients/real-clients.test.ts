/**
 * The REAL Claude Code and Codex CLIs, unmodified, talking to the gateway's built-in
 * echo provider: offline, one child process per run, each with a hard timeout.
 *
 * Opt-in: set MODEL_GATEWAY_REAL_CLIENTS_DIR to a folder holding
 * node_modules/.bin/claude and node_modules/.bin/codex (scripts/install-real-clients.sh
 * DIR installs the pinned versions). Without it the whole file is skipped.
 *
 *   scripts/install-real-clients.sh /tmp/real-clients
 *   MODEL_GATEWAY_REAL_CLIENTS_DIR=/tmp/real-clients npx vitest run test/real-clients
 *
 * Each client gets a fresh scratch HOME (and CODEX_HOME), a fresh project folder as
 * its working directory, stdin from /dev/null and an environment built from scratch
 * (only PATH is inherited), so the user's own settings and keys never leak in.
 * The tool loops run only `echo` commands: echo fills a tool's required string
 * arguments with the user text, so the prompt IS the command.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import type { TestGateway } from '../helpers/start-gateway.js';

const CLIENTS_DIR = process.env.MODEL_GATEWAY_REAL_CLIENTS_DIR;
/** Hard limit per client run; the child's whole process group is killed after it. */
const CLIENT_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = CLIENT_TIMEOUT_MS + 15_000;

const KEY = 'mgw-real-clients-key-0123456789abcdef';
const KEY_ID = createHash('sha256').update(KEY).digest('hex').slice(0, 8);

/** echo for everything, under the names the clients ask for by default. */
const CONFIG = {
  providers: { echo: { type: 'echo' } },
  models: {
    echo: { provider: 'echo' },
    'claude-*': { provider: 'echo' },
    'gpt-*': { provider: 'echo' },
  },
  keyGroups: { dev: { keys: [KEY], models: ['*'] } },
} as WrittenConfig;

/** What the gateway's --log-file holds per request (verbose: headers and bodies included). */
interface LogEntry {
  method: string;
  path: string;
  status?: number;
  userAgent?: string;
  model?: string;
  provider?: string;
  keyGroup?: string;
  detail?: { requestHeaders?: Record<string, string>; requestBody?: unknown };
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `command` with a hard timeout; rejects (after killing its process group) when it is exceeded. */
function runClient(command: string, args: string[], opts: { cwd: string; env: Record<string, string> }): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'], // stdin from /dev/null
      detached: true, // own process group, so a timeout kills the native binaries too
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      reject(new Error(`${command} ${args.join(' ')} timed out after ${CLIENT_TIMEOUT_MS} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, CLIENT_TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

const describeReal = describe.skipIf(!CLIENTS_DIR);

describeReal('real clients through the gateway (echo provider, offline)', () => {
  const dir = CLIENTS_DIR ?? '';
  const claudeBin = join(dir, 'node_modules', '.bin', 'claude');
  const codexBin = join(dir, 'node_modules', '.bin', 'codex');
  let scratch: string;
  let logFile: string;
  let gw: TestGateway;
  let claudeVersion: string;
  let codexVersion: string;

  beforeAll(async () => {
    for (const bin of [claudeBin, codexBin]) {
      if (!existsSync(bin)) throw new Error(`${bin} is missing: run scripts/install-real-clients.sh ${dir}`);
    }
    const version = (pkg: string) =>
      (JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
    claudeVersion = version('@anthropic-ai/claude-code');
    codexVersion = version('@openai/codex');
    scratch = mkdtempSync(join(tmpdir(), 'mgw-real-clients-'));
    logFile = join(scratch, 'gateway.jsonl');
    // Imported here so that the skipped file costs the normal test run nothing.
    const { startGateway } = await import('../helpers/start-gateway.js');
    gw = await startGateway(CONFIG, { verbose: true, logFile });
  });

  afterAll(async () => {
    await gw?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** A fresh folder under the scratch dir. */
  let folders = 0;
  const freshDir = (name: string): string => {
    const path = join(scratch, `${++folders}-${name}`);
    mkdirSync(path, { recursive: true });
    return path;
  };

  /** Only PATH comes from the outside (codex.js needs node, Codex's shell tool needs bash). */
  const baseEnv = (home: string): Record<string, string> => ({
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
  });

  /** Request log lines logged since `before`, once `posts` POST lines are there. */
  async function newLines(before: number, posts: number): Promise<string[]> {
    const until = Date.now() + 5_000;
    for (;;) {
      const lines = gw.lines().slice(before);
      if (lines.filter((l) => / POST /.test(l)).length >= posts || Date.now() > until) return lines;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** The log-file entries from index `before` on, once `count` of them are written. */
  async function newEntries(before: number, count: number): Promise<LogEntry[]> {
    const until = Date.now() + 5_000;
    for (;;) {
      const entries = existsSync(logFile)
        ? readFileSync(logFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LogEntry)
        : [];
      if (entries.length >= before + count || Date.now() > until) return entries.slice(before);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const entryCount = (): number => (existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').filter(Boolean).length : 0);

  const bodyOf = (e: LogEntry): Record<string, unknown> =>
    (typeof e.detail?.requestBody === 'string' ? JSON.parse(e.detail.requestBody) : e.detail?.requestBody) as Record<string, unknown>;

  // ---------------------------------------------------------------- Claude Code

  interface ClaudeResult {
    type: string;
    subtype: string;
    is_error: boolean;
    result: string;
    num_turns: number;
    stop_reason: string;
  }

  async function claude(prompt: string, auth: 'ANTHROPIC_API_KEY' | 'ANTHROPIC_AUTH_TOKEN', extraArgs: string[] = []) {
    const linesBefore = gw.lines().length;
    const entriesBefore = entryCount();
    const run = await runClient(claudeBin, ['-p', prompt, '--output-format', 'json', ...extraArgs], {
      cwd: freshDir('claude-project'),
      env: {
        ...baseEnv(freshDir('claude-home')),
        ANTHROPIC_BASE_URL: gw.url,
        [auth]: KEY,
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
      },
    });
    expect(run.code, `claude exited ${run.code}/${run.signal}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
    const result = JSON.parse(run.stdout) as ClaudeResult;
    return { run, result, linesBefore, entriesBefore };
  }

  /** Claude Code's requests: only messages calls (plus 2.1.197's HEAD / warm-up), all answered by echo. */
  function expectClaudeTraffic(lines: string[], entries: LogEntry[], posts: number, auth: 'x-api-key' | 'authorization') {
    const postLines = lines.filter((l) => / POST /.test(l));
    expect(postLines, lines.join('\n')).toHaveLength(posts);
    for (const line of postLines) {
      expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d 200 POST /v1/messages (claude-\\S+) → echo/\\1 dev:${KEY_ID} `));
    }
    for (const line of lines.filter((l) => !/ POST /.test(l))) expect(line).toMatch(/ HEAD \/ /);

    const posted = entries.filter((e) => e.method === 'POST');
    expect(posted).toHaveLength(posts);
    for (const e of posted) {
      expect(e).toMatchObject({ path: '/v1/messages', status: 200, provider: 'echo', keyGroup: 'dev' });
      expect(e.userAgent).toBe(`claude-cli/${claudeVersion} (external, sdk-cli)`);
      const headers = e.detail?.requestHeaders ?? {};
      expect(headers['anthropic-version']).toBe('2023-06-01');
      expect(headers[auth]).toBeDefined();
      expect(headers[auth === 'x-api-key' ? 'authorization' : 'x-api-key']).toBeUndefined();
      expect(bodyOf(e).stream).toBe(true);
    }
    expect(gw.output.join('')).not.toContain(KEY);
  }

  it(
    'Claude Code -p with ANTHROPIC_API_KEY (x-api-key) gets the echo',
    async () => {
      const { result, linesBefore, entriesBefore } = await claude('say hi', 'ANTHROPIC_API_KEY');
      expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'say hi', num_turns: 1 });
      const lines = await newLines(linesBefore, 1);
      expectClaudeTraffic(lines, await newEntries(entriesBefore, lines.length), 1, 'x-api-key');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'Claude Code -p with ANTHROPIC_AUTH_TOKEN (Bearer) gets the echo',
    async () => {
      const { result, linesBefore, entriesBefore } = await claude('say hi with a bearer token', 'ANTHROPIC_AUTH_TOKEN');
      expect(result).toMatchObject({ subtype: 'success', is_error: false, result: 'say hi with a bearer token' });
      const lines = await newLines(linesBefore, 1);
      expectClaudeTraffic(lines, await newEntries(entriesBefore, lines.length), 1, 'authorization');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'Claude Code runs the Bash tool echo asks for and ends the loop on the tool result',
    async () => {
      // echo calls Bash (named in the text) with {command: <the prompt>}; only `echo` commands are allowed.
      const { result, linesBefore, entriesBefore } = await claude('echo hello Bash', 'ANTHROPIC_API_KEY', [
        '--allowedTools',
        'Bash(echo:*)',
      ]);
      // "hello Bash" without the "echo " proves the command ran.
      expect(result).toMatchObject({ subtype: 'success', is_error: false, num_turns: 2, result: 'Tool result: hello Bash' });
      const lines = await newLines(linesBefore, 2);
      const entries = await newEntries(entriesBefore, lines.length);
      expectClaudeTraffic(lines, entries, 2, 'x-api-key');

      const second = bodyOf(entries.filter((e) => e.method === 'POST')[1]!);
      const messages = second.messages as { role: string; content: unknown }[];
      const turns = messages.filter((m) => m.role !== 'system');
      expect(turns.at(-2)).toMatchObject({
        role: 'assistant',
        content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo hello Bash' } }],
      });
      expect(turns.at(-1)).toMatchObject({
        role: 'user',
        content: [{ type: 'tool_result', content: 'hello Bash', is_error: false }],
      });
    },
    TEST_TIMEOUT_MS,
  );

  // ---------------------------------------------------------------- Codex

  async function codex(prompt: string) {
    const linesBefore = gw.lines().length;
    const entriesBefore = entryCount();
    const codexHome = freshDir('codex-home');
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        'model = "gpt-5-codex"',
        'model_provider = "model-gateway"',
        '',
        '[model_providers.model-gateway]',
        'name = "model-gateway"',
        `base_url = "${gw.url}/v1"`,
        'env_key = "MODEL_GATEWAY_API_KEY"',
        'wire_api = "responses"',
        '',
      ].join('\n'),
    );
    const run = await runClient(codexBin, ['exec', '--skip-git-repo-check', prompt], {
      cwd: freshDir('codex-project'),
      env: { ...baseEnv(freshDir('codex-user-home')), CODEX_HOME: codexHome, MODEL_GATEWAY_API_KEY: KEY },
    });
    expect(run.code, `codex exited ${run.code}/${run.signal}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
    return { run, linesBefore, entriesBefore };
  }

  /** Codex's requests: only Responses calls, all answered by echo. */
  function expectCodexTraffic(lines: string[], entries: LogEntry[], posts: number) {
    expect(lines, lines.join('\n')).toHaveLength(posts);
    for (const line of lines) {
      expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d 200 POST /v1/responses gpt-5-codex → echo/gpt-5-codex dev:${KEY_ID} `));
    }
    expect(entries).toHaveLength(posts);
    for (const e of entries) {
      expect(e).toMatchObject({ method: 'POST', path: '/v1/responses', status: 200, provider: 'echo', model: 'gpt-5-codex' });
      expect(e.userAgent).toMatch(new RegExp(`^codex_exec/${codexVersion.replace(/\./g, '\\.')} `));
      const headers = e.detail?.requestHeaders ?? {};
      expect(headers.authorization).toBeDefined();
      expect(headers.originator).toBe('codex_exec');
      expect(headers.accept).toBe('text/event-stream');
      expect(bodyOf(e)).toMatchObject({ model: 'gpt-5-codex', stream: true, store: false });
    }
    expect(gw.output.join('')).not.toContain(KEY);
  }

  it(
    'Codex exec with a custom Responses provider gets the echo',
    async () => {
      const { run, linesBefore, entriesBefore } = await codex('say hi');
      // The final message goes to stdout; banners and warnings go to stderr.
      expect(run.stdout.trim()).toBe('say hi');
      const lines = await newLines(linesBefore, 1);
      expectCodexTraffic(lines, await newEntries(entriesBefore, lines.length), 1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'Codex runs the exec_command call echo asks for and ends the loop on the tool result',
    async () => {
      // echo calls exec_command (named in the text) with {cmd: <the prompt>}; Codex runs it in its read-only sandbox.
      const { run, linesBefore, entriesBefore } = await codex('echo hello exec_command');
      expect(run.stdout).toMatch(/^Tool result: /);
      expect(run.stdout).toContain('Process exited with code 0');
      expect(run.stdout).toMatch(/Output:\nhello exec_command\n/);
      const lines = await newLines(linesBefore, 2);
      const entries = await newEntries(entriesBefore, lines.length);
      expectCodexTraffic(lines, entries, 2);

      const input = bodyOf(entries[1]!).input as { type: string; name?: string; arguments?: string; call_id?: string; output?: string }[];
      const call = input.find((i) => i.type === 'function_call');
      const output = input.find((i) => i.type === 'function_call_output');
      expect(call).toMatchObject({ name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo hello exec_command' }) });
      expect(output?.call_id).toBe(call?.call_id);
      expect(output?.output).toMatch(/Process exited with code 0[\s\S]*Output:\nhello exec_command\n/);
    },
    TEST_TIMEOUT_MS,
  );
});
