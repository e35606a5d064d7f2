/**
 * The REAL Gemini CLI, unmodified, talking to the gateway's built-in echo provider; and the real
 * Claude Code and Codex on a fake Gemini 3 (test/helpers/fake-gemini.ts) that refuses a function call
 * sent back without its thought signature. Offline, one child process per run, each with a hard timeout.
 *
 * Opt-in, as test/real-clients/real-clients.test.ts: set MODEL_GATEWAY_REAL_CLIENTS_DIR to the folder
 * scripts/install-real-clients.sh DIR filled (node_modules/.bin/gemini, claude and codex). Without it
 * the whole file is skipped.
 *
 *   scripts/install-real-clients.sh /tmp/real-clients
 *   MODEL_GATEWAY_REAL_CLIENTS_DIR=/tmp/real-clients npx vitest run test/real-clients/gemini.test.ts
 *
 * The Gemini CLI gets what `model-gateway env gemini-cli` prints (src/cli/snippets.ts: its settings.json
 * and its variables), plus the settings that keep it offline: without `privacy.usageStatisticsEnabled:
 * false` it sends usage statistics to Google, and update checks are turned off the same way. It runs
 * in a fresh HOME and project folder, trusted for the run (`--skip-trust`, or it refuses to start
 * headless in a folder it has not been told to trust), in YOLO mode (`--approval-mode yolo`) so that its
 * shell tool runs without asking. Its model is named: on its default (`auto`) it first asks a small
 * model to rate the prompt in JSON, which echo cannot give.
 *
 * The tool loops run only `echo` commands: echo calls the tool named in the prompt (`run_shell_command`)
 * with the prompt as its command. Translated: an echo that speaks only Messages, then only Chat, as in
 * real-clients.test.ts.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geminiCliEnv, geminiCliSettings } from '#src/cli/snippets.js';
import type { WrittenConfig } from '#src/config/schema.js';
import type { Protocol } from '#src/protocols/types.js';
import type { FakeGemini } from '../helpers/fake-gemini.js';
import type { FakeUpstream } from '../helpers/fake-upstream.js';
import type { Received } from '../helpers/received.js';
import { runClient as runClientWithin } from '../helpers/run-client.js';
import type { TestGateway } from '../helpers/start-gateway.js';
import { CLIENTS_DIR, CLIENT_TIMEOUT_MS, claudeCodeEnv, clientBin, clientEnv, codexProviderToml, freshDirs, TEST_TIMEOUT_MS } from '../helpers/real-clients.js';

/** Hard limit per client run; the child's whole process group is killed after it. */

const KEY = 'mgw-real-clients-key-0123456789abcdef';
const KEY_ID = createHash('sha256').update(KEY).digest('hex').slice(0, 8);

/** echo under one exact name, the one the Gemini CLI is told to ask for. */
const MODEL = 'echo';
const CONFIG = {
  providers: { echo: { type: 'echo' } },
  models: { [MODEL]: { provider: 'echo' } },
  keyGroups: { dev: { keys: [KEY], models: ['*'] } },
} as WrittenConfig;
/** The same, with echo speaking only `protocol`: the Gemini CLI's requests reach it translated. */
const echoOnly = (protocol: Protocol): WrittenConfig => ({ ...CONFIG, providers: { echo: { type: 'echo', protocols: [protocol] } } }) as WrittenConfig;

/** What the gateway's --log-file holds per request (verbose: headers and bodies included). */
interface LogEntry {
  method: string;
  path: string;
  status?: number;
  userAgent?: string;
  model?: string;
  provider?: string;
  keyGroup?: string;
  protocol?: Protocol;
  upstreamProtocol?: Protocol;
  warnings?: string[];
  request?: { headers: Record<string, string>; body: { json?: unknown } };
  attempts?: { protocol: Protocol; body: { json?: unknown } }[];
}

type Obj = Record<string, unknown>;
const asObject = (body: unknown): Obj => (typeof body === 'string' ? JSON.parse(body) : body) as Obj;

/** Runs a client with this suite's hard timeout. */
const runClient = (command: string, args: string[], opts: { cwd: string; env: Record<string, string> }) =>
  runClientWithin(command, args, { ...opts, timeoutMs: CLIENT_TIMEOUT_MS });

/** A running gateway and its --log-file. */
interface Gw {
  readonly gw: TestGateway;
  readonly logFile: string;
}

/** The log file's complete entries (a last line without its newline is still being written). */
const logEntries = (logFile: string): LogEntry[] =>
  existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(0, -1).filter(Boolean).map((l) => JSON.parse(l) as LogEntry) : [];

/** The log entries from index `before` on, once `count` of them are written. */
async function newEntries(logFile: string, before: number, count: number): Promise<LogEntry[]> {
  const until = Date.now() + 5_000;
  for (;;) {
    const entries = logEntries(logFile);
    if (entries.length >= before + count || Date.now() > until) return entries.slice(before);
    await new Promise((r) => setTimeout(r, 20));
  }
}


const describeReal = describe.skipIf(!CLIENTS_DIR);

describeReal('the real Gemini CLI through the gateway (echo provider, offline)', () => {
  const geminiBin = clientBin('gemini');
  let scratch: string;
  let native: Gw;
  const only = {} as Record<'messages' | 'chat', Gw>;
  let geminiVersion: string;

  beforeAll(async () => {
    if (!existsSync(geminiBin)) throw new Error(`${geminiBin} is missing: run scripts/install-real-clients.sh ${CLIENTS_DIR}`);
    geminiVersion = (JSON.parse(readFileSync(join(CLIENTS_DIR ?? '', 'node_modules', '@google/gemini-cli', 'package.json'), 'utf8')) as { version: string }).version;
    scratch = mkdtempSync(join(tmpdir(), 'mgw-real-gemini-'));
    // Imported here so that the skipped file costs the normal test run nothing.
    const { startGateway } = await import('../helpers/start-gateway.js');
    const start = async (config: WrittenConfig, name: string): Promise<Gw> => {
      const logFile = join(scratch, `${name}.jsonl`);
      return { gw: await startGateway(config, { verbose: true, logFile }), logFile };
    };
    native = await start(CONFIG, 'gateway');
    for (const p of ['messages', 'chat'] as const) only[p] = await start(echoOnly(p), `gateway-${p}-only`);
  });

  afterAll(async () => {
    await Promise.all([native, ...Object.values(only)].map((g) => g?.gw.close()));
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const freshDir = freshDirs(() => scratch);

  /** The settings `env gemini-cli` prints, and those that keep the CLI from calling Google itself. */
  const settings = (): Obj => ({
    ...(JSON.parse(geminiCliSettings().join('\n')) as Obj),
    privacy: { usageStatisticsEnabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    telemetry: { enabled: false },
  });

  interface GeminiResult {
    response: string;
    stats: { models: Record<string, unknown>; tools: { totalCalls: number; totalSuccess: number; byName: Record<string, { count: number; success: number }> } };
  }

  /** `gemini -p prompt` with the variables `env gemini-cli --model echo` prints; its JSON result. */
  async function gemini(prompt: string, { gw, logFile }: Gw) {
    const home = freshDir('gemini-home');
    mkdirSync(join(home, '.gemini'));
    writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify(settings(), null, 2));
    const vars = geminiCliEnv({ url: gw.url, key: { text: KEY }, geminiModel: MODEL, codexModel: MODEL });
    const env = Object.fromEntries(vars.map((v) => [v.name, 'text' in v.value ? v.value.text : '']));
    const entriesBefore = logEntries(logFile).length;
    const linesBefore = gw.lines().length;
    const run = await runClient(geminiBin, ['-p', prompt, '--output-format', 'json', '--skip-trust', '--approval-mode', 'yolo'], {
      cwd: freshDir('gemini-project'),
      env: { ...clientEnv(home), ...env },
    });
    expect(run.code, `gemini exited ${run.code}/${run.signal}\nstdout: ${run.stdout}\nstderr: ${run.stderr}\nlog: ${gw.lines().join('\n')}`).toBe(0);
    return { result: JSON.parse(run.stdout) as GeminiResult, entriesBefore, linesBefore };
  }

  /**
   * The Gemini CLI's requests: streamed generateContent calls on the model it was told, with its key in
   * x-goog-api-key (never printed), passed through or (`via`) translated.
   */
  function expectGeminiTraffic(g: Gw, lines: string[], posted: LogEntry[], posts: number, via?: 'messages' | 'chat') {
    const tag = via === undefined ? '' : `\\[gemini→${via}\\] `;
    expect(lines, lines.join('\n')).toHaveLength(posts);
    for (const line of lines) {
      expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d 200 POST /v1beta/models/${MODEL}:streamGenerateContent ${MODEL} → echo/${MODEL} ${tag}dev:${KEY_ID} `));
    }
    expect(posted).toHaveLength(posts);
    for (const [n, e] of posted.entries()) {
      expect(e).toMatchObject({ method: 'POST', status: 200, model: MODEL, provider: 'echo', keyGroup: 'dev', protocol: 'gemini', upstreamProtocol: via ?? 'gemini' });
      expect(e.path).toBe(`/v1beta/models/${MODEL}:streamGenerateContent`);
      expect(e.userAgent).toMatch(new RegExp(`^GeminiCLI(-[a-z]+)?/${geminiVersion.replace(/\./g, '\\.')}/`));
      const headers = e.request?.headers ?? {};
      expect(headers['x-goog-api-key']).toBeDefined();
      expect(headers.authorization).toBeUndefined();
      // Gemini's request names neither the model nor the stream: the path does.
      expect(bodyOf(e)).not.toHaveProperty('model');
      expect(bodyOf(e)).not.toHaveProperty('stream');
      if (via === undefined) {
        expect(e.warnings).toBeUndefined();
      } else {
        // What the line counts as dropped is what the log file lists.
        const dropped = e.warnings?.length ?? 0;
        // The line names the first phrase and counts the rest.
        if (dropped > 0) expect(lines[n]).toMatch(new RegExp(` dropped .+${dropped > 1 ? ` \\+${dropped - 1}` : ''}$`));
        else expect(lines[n]).not.toContain(' dropped');
        expect(upstreamBodyOf(e)).toMatchObject({ model: MODEL, stream: true });
        expect(JSON.stringify(upstreamBodyOf(e))).not.toMatch(/"(functionCall|functionResponse|thoughtSignature|parametersJsonSchema)"/);
      }
    }
    expect(g.gw.output.join('')).not.toContain(KEY);
  }
  const bodyOf = (e: LogEntry): Obj => asObject(e.request?.body.json);
  const upstreamBodyOf = (e: LogEntry): Obj => asObject(e.attempts?.[0]?.body.json);

  async function postLines(g: Gw, linesBefore: number, posts: number): Promise<string[]> {
    const until = Date.now() + 5_000;
    for (;;) {
      const lines = g.gw.lines().slice(linesBefore);
      if (lines.length >= posts || Date.now() > until) return lines;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const PROMPT = 'echo hello run_shell_command';
  /** What the Gemini CLI's shell tool returns for PROMPT (its process group id varies). */
  const SHELL_OUTPUT = /^<untrusted_context>\nOutput: hello run_shell_command\nProcess Group PGID: \d+\n<\/untrusted_context>$/;

  /** The CLI's result after one tool round: one shell call that succeeded, and echo's answer to its output. */
  function expectToolLoopResult(result: GeminiResult) {
    expect(result.response.startsWith('Tool result: ')).toBe(true);
    expect(result.response.slice('Tool result: '.length)).toMatch(SHELL_OUTPUT);
    expect(result.stats.tools).toMatchObject({ totalCalls: 1, totalSuccess: 1, byName: { run_shell_command: { count: 1, success: 1 } } });
    expect(Object.keys(result.stats.models)).toEqual([MODEL]);
  }

  it(
    'Gemini CLI -p, set up as `env gemini-cli` says, gets the echo',
    async () => {
      const { result, entriesBefore, linesBefore } = await gemini('say hi', native);
      expect(result.response).toBe('say hi');
      expect(result.stats.tools.totalCalls).toBe(0);
      const lines = await postLines(native, linesBefore, 1);
      expectGeminiTraffic(native, lines, await newEntries(native.logFile, entriesBefore, 1), 1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'Gemini CLI runs the shell tool echo asks for and ends the loop on the tool result (passthrough)',
    async () => {
      const { result, entriesBefore, linesBefore } = await gemini(PROMPT, native);
      expectToolLoopResult(result);
      const lines = await postLines(native, linesBefore, 2);
      const posted = await newEntries(native.logFile, entriesBefore, 2);
      expectGeminiTraffic(native, lines, posted, 2);
      // The second request: the call echo made, with its id, and the CLI's result answering that id.
      const contents = bodyOf(posted[1]!).contents as { role: string; parts: Obj[] }[];
      const [call, response] = contents.slice(-2);
      expect(call).toMatchObject({ role: 'model', parts: [{ functionCall: { name: 'run_shell_command', args: { command: PROMPT } } }] });
      const id = (call!.parts[0]!.functionCall as { id: string }).id;
      expect(id).toMatch(/^call_echo/);
      expect(response).toMatchObject({ role: 'user', parts: [{ functionResponse: { id, name: 'run_shell_command', response: { output: expect.stringMatching(SHELL_OUTPUT) } } }] });
    },
    TEST_TIMEOUT_MS,
  );

  it.each(['messages', 'chat'] as const)(
    'Gemini CLI runs the shell tool through an echo that speaks only %s, and ends the loop on the result',
    async (via) => {
      const g = only[via];
      const { result, entriesBefore, linesBefore } = await gemini(PROMPT, g);
      expectToolLoopResult(result);
      const lines = await postLines(g, linesBefore, 2);
      const posted = await newEntries(g.logFile, entriesBefore, 2);
      expectGeminiTraffic(g, lines, posted, 2, via);
      // The call id echo minted in the upstream's protocol reached the CLI and came back with the result.
      const upstream = upstreamBodyOf(posted[1]!);
      const messages = upstream.messages as Obj[];
      if (via === 'messages') {
        const [call, response] = messages.slice(-2) as { role: string; content: Obj[] }[];
        expect(call).toMatchObject({ role: 'assistant', content: [{ type: 'tool_use', name: 'run_shell_command', input: { command: PROMPT } }] });
        const id = call!.content.find((b) => b.type === 'tool_use')!.id;
        expect(id).toMatch(/^toolu_echo/);
        expect(response!.content).toEqual([expect.objectContaining({ type: 'tool_result', tool_use_id: id, content: expect.stringMatching(SHELL_OUTPUT) })]);
      } else {
        const [call, response] = messages.slice(-2) as Obj[];
        expect(call).toMatchObject({ role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'run_shell_command', arguments: JSON.stringify({ command: PROMPT }) } }] });
        const id = (call!.tool_calls as { id: string }[])[0]!.id;
        expect(id).toMatch(/^call_echo/);
        expect(response).toEqual({ role: 'tool', tool_call_id: id, content: expect.stringMatching(SHELL_OUTPUT) });
      }
      // The tool was declared upstream in the upstream's own shape.
      const tools = upstream.tools as Obj[];
      const names = via === 'messages' ? tools.map((t) => t.name) : tools.map((t) => (t.function as Obj).name);
      expect(names).toContain('run_shell_command');
    },
    TEST_TIMEOUT_MS,
  );
});

// ---------------------------------------------------------------- Claude Code and Codex on Gemini 3

/**
 * Gemini 3 refuses a function-calling turn sent back without the thought signature it gave on the call.
 * Claude Code and Codex have no field for it: the gateway hands it to them sealed (a thinking block, a
 * reasoning item's encrypted_content) and restores it on the call when they send it back. The fake
 * calls the first function declared, with sample arguments: each client is left with its shell tool
 * alone or first, and the command (`Paris`, not a program) fails, which still ends the loop.
 */
describeReal('Claude Code and Codex on a Gemini 3 model that checks thought signatures (fake Gemini on loopback)', () => {
  const claudeBin = clientBin('claude');
  const codexBin = clientBin('codex');
  let scratch: string;
  let gw: TestGateway;
  let upstream: FakeUpstream;
  let fake: FakeGemini;
  let geminiText: string;
  let geminiKey: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'mgw-real-on-gemini-'));
    const { startGateway } = await import('../helpers/start-gateway.js');
    const { startFakeUpstream } = await import('../helpers/fake-upstream.js');
    const { fakeGemini, GEMINI_API_KEY, GEMINI_TEXT } = await import('../helpers/fake-gemini.js');
    geminiText = GEMINI_TEXT;
    geminiKey = GEMINI_API_KEY;
    upstream = await startFakeUpstream();
    fake = fakeGemini({ apiKey: GEMINI_API_KEY });
    upstream.always(fake.behaviour);
    gw = await startGateway(
      {
        providers: { google: { type: 'gemini', baseUrl: `${upstream.url}/v1beta`, apiKey: GEMINI_API_KEY, retries: 0 } },
        models: { 'gemini-pro': { provider: 'google', upstreamModel: 'gemini-3-pro-preview' } },
        keyGroups: { dev: { keys: [KEY], models: ['*'] } },
      } as unknown as WrittenConfig,
      { verbose: true, logFile: join(scratch, 'gateway.jsonl') },
    );
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const freshDir = freshDirs(() => scratch);

  /** The generateContent calls that reached the fake since `before`. */
  const generateCalls = (before: number): Received[] => upstream.received.slice(before).filter((r) => /:(stream)?[gG]enerateContent$/.test(r.url.split('?')[0]!));
  type Content = { role: string; parts: Obj[] };
  const contentsOf = (r: Received) => (r.json as { contents: Content[] }).contents;

  /**
   * Two calls per loop: the fake's function call, then, with the client's tool result, its text. The
   * second carries the call back with the signature the fake gave for it (or the fake would have refused).
   */
  function expectSignedLoop(calls: Received[]) {
    expect(calls, JSON.stringify(calls.map((c) => c.url))).toHaveLength(2);
    for (const c of calls) {
      expect(c.url).toBe('/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse');
      expect(c.headers['x-goog-api-key']).toBe(geminiKey);
      expect(JSON.stringify(c.headers)).not.toContain(KEY);
    }
    expect(contentsOf(calls[0]!).some((c) => c.parts.some((p) => p.functionCall !== undefined))).toBe(false);
    const second = contentsOf(calls[1]!);
    const called = second.filter((c) => c.role === 'model').flatMap((c) => c.parts.filter((p) => p.functionCall !== undefined));
    expect(called).toHaveLength(1);
    const name = (called[0]!.functionCall as { name: string }).name;
    expect(fake.gave(called[0]!.thoughtSignature, name)).toBe(true);
    expect(second.at(-1)!.parts.filter((p) => p.functionResponse !== undefined)).toEqual([
      expect.objectContaining({ functionResponse: expect.objectContaining({ name }) }),
    ]);
  }

  it(
    'Claude Code completes a tool loop on Gemini 3: the signature comes back in a sealed thinking block',
    async () => {
      const before = upstream.received.length;
      const run = await runClient(claudeBin, ['-p', 'Run the command.', '--output-format', 'json', '--model', 'gemini-pro', '--tools', 'Bash', '--allowedTools', 'Bash(Paris:*)'], {
        cwd: freshDir('claude-project'),
        env: claudeCodeEnv(freshDir('claude-home'), gw.url, KEY),
      });
      expect(run.code, `claude exited ${run.code}/${run.signal}\nstdout: ${run.stdout}\nstderr: ${run.stderr}\nlog: ${gw.lines().join('\n')}`).toBe(0);
      const result = JSON.parse(run.stdout) as { subtype: string; is_error: boolean; result: string; num_turns: number };
      const calls = generateCalls(before);
      expectSignedLoop(calls);
      expect((called(calls[1]!).functionCall as Obj).name).toBe('Bash');
      // Claude Code's result is its last text: the text's own signature must not come after it.
      expect(result).toMatchObject({ subtype: 'success', is_error: false, result: geminiText, num_turns: 2 });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "Codex completes a tool loop on Gemini 3: the signature comes back in a reasoning item's encrypted_content",
    async () => {
      const before = upstream.received.length;
      const codexHome = freshDir('codex-home');
      writeFileSync(join(codexHome, 'config.toml'), codexProviderToml('gemini-pro', gw.url));
      const run = await runClient(codexBin, ['exec', '--skip-git-repo-check', 'Run the command.'], {
        cwd: freshDir('codex-project'),
        env: { ...clientEnv(freshDir('codex-user-home')), CODEX_HOME: codexHome, MODEL_GATEWAY_API_KEY: KEY },
      });
      expect(run.code, `codex exited ${run.code}/${run.signal}\nstdout: ${run.stdout}\nstderr: ${run.stderr}\nlog: ${gw.lines().join('\n')}`).toBe(0);
      expect(run.stdout.trim()).toBe(geminiText);
      expectSignedLoop(generateCalls(before));
    },
    TEST_TIMEOUT_MS,
  );

  /** The one function call sent back in a request. */
  const called = (r: Received): Obj => contentsOf(r).flatMap((c) => c.parts.filter((p) => p.functionCall !== undefined))[0]!;
});
