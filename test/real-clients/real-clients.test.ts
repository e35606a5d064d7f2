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
 *
 * Translation: next to the gateway whose echo speaks all three protocols, one gateway per
 * protocol runs an echo restricted to that protocol (`"protocols": [p]`), a fake upstream
 * of the OTHER protocol, in-process. The clients send exactly what they send natively
 * (same default model names); the gateway must translate Claude Code's Messages into Chat
 * or Responses and Codex's Responses into Messages or Chat, and the answers back.
 *
 * Strict models: the last suites put fake upstreams on loopback in front of the clients instead of
 * echo, behaving like the strict real ones: reasoning models that refuse a tool-call turn sent back
 * without their reasoning (test/helpers/strict-reasoning-upstreams.ts), and a model that pushes Codex
 * over its compaction threshold (test/helpers/compacting-chat-model.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUMMARY_INSTRUCTION } from '#src/compact/summary-request.js';
import type { WrittenConfig } from '#src/config/schema.js';
import type { Protocol } from '#src/protocols/types.js';
import type { FakeUpstream } from '../helpers/fake-upstream.js';
import { runClient as runClientWithin } from '../helpers/run-client.js';
import type { TestGateway } from '../helpers/start-gateway.js';
import { textOf } from '../helpers/compacting-chat-model.js';
import { encryptedOf, reasoningOf, type ToolStep } from '../helpers/strict-reasoning-upstreams.js';
import { CLIENTS_DIR, CLIENT_TIMEOUT_MS, claudeCodeEnv, clientBin, clientEnv, codexProviderToml, freshDirs, TEST_TIMEOUT_MS } from '../helpers/real-clients.js';

/** Hard limit per client run; the child's whole process group is killed after it. */

const KEY = 'mgw-real-clients-key-0123456789abcdef';
const KEY_ID = createHash('sha256').update(KEY).digest('hex').slice(0, 8);

/** echo for everything, under the names the clients ask for by default. */
const CONFIG = {
  providers: { echo: { type: 'echo' } },
  models: {
    echo: { provider: 'echo' },
    // An exact name, for Claude Code's model discovery (globs are not listed).
    'claude-echo': { provider: 'echo', displayName: 'Echo through the gateway' },
    'claude-*': { provider: 'echo' },
    'gpt-*': { provider: 'echo' },
  },
  keyGroups: { dev: { keys: [KEY], models: ['*'] } },
} as WrittenConfig;

/** The same, with echo speaking only `protocol`: every other protocol reaches it translated. */
const echoOnly = (protocol: Protocol): WrittenConfig => ({ ...CONFIG, providers: { echo: { type: 'echo', protocols: [protocol] } } }) as WrittenConfig;

/** What the gateway's --log-file holds per request (verbose: headers and bodies included). */
interface LogEntry {
  method: string;
  path: string;
  status?: number;
  userAgent?: string;
  /** Claude Code's X-Claude-Code-Session-Id, as the gateway recorded it. */
  sessionId?: string;
  model?: string;
  provider?: string;
  keyGroup?: string;
  protocol?: Protocol;
  /** The protocol spoken upstream: differs from `protocol` when translated. */
  upstreamProtocol?: Protocol;
  /** What translation dropped or approximated (translated requests only). */
  warnings?: string[];
  /** The whole exchange (src/log/exchange-json.ts). */
  request?: { headers: Record<string, string>; body: { json?: unknown } };
  attempts?: { protocol: Protocol; body: { json?: unknown } }[];
}

/** A running gateway and its --log-file. */
interface Gw {
  readonly gw: TestGateway;
  readonly logFile: string;
}

/** Runs a client with this suite's hard timeout. */
const runClient = (command: string, args: string[], opts: { cwd: string; env: Record<string, string> }) =>
  runClientWithin(command, args, { ...opts, timeoutMs: CLIENT_TIMEOUT_MS });

const describeReal = describe.skipIf(!CLIENTS_DIR);

describeReal('real clients through the gateway (echo provider, offline)', () => {
  const claudeBin = clientBin('claude');
  const codexBin = clientBin('codex');
  let scratch: string;
  /** echo speaks every protocol: passthrough. */
  let native: Gw;
  /** echo speaks only the key's protocol: the clients' requests are translated. */
  const only = {} as Record<Protocol, Gw>;
  let claudeVersion: string;
  let codexVersion: string;

  beforeAll(async () => {
    for (const bin of [claudeBin, codexBin]) {
      if (!existsSync(bin)) throw new Error(`${bin} is missing: run scripts/install-real-clients.sh ${CLIENTS_DIR}`);
    }
    const version = (pkg: string) =>
      (JSON.parse(readFileSync(join(CLIENTS_DIR ?? '', 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
    claudeVersion = version('@anthropic-ai/claude-code');
    codexVersion = version('@openai/codex');
    scratch = mkdtempSync(join(tmpdir(), 'mgw-real-clients-'));
    // Imported here so that the skipped file costs the normal test run nothing.
    const { startGateway } = await import('../helpers/start-gateway.js');
    const start = async (config: WrittenConfig, name: string): Promise<Gw> => {
      const logFile = join(scratch, `${name}.jsonl`);
      return { gw: await startGateway(config, { verbose: true, logFile }), logFile };
    };
    native = await start(CONFIG, 'gateway');
    for (const p of ['chat', 'messages', 'responses'] as const) only[p] = await start(echoOnly(p), `gateway-${p}-only`);
  });

  afterAll(async () => {
    await Promise.all([native, ...Object.values(only)].map((g) => g?.gw.close()));
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const freshDir = freshDirs(() => scratch);


  /** Request log lines logged since `before`, once `posts` POST lines are there. */
  async function newLines({ gw }: Gw, before: number, posts: number): Promise<string[]> {
    const until = Date.now() + 5_000;
    for (;;) {
      const lines = gw.lines().slice(before);
      if (lines.filter((l) => / POST /.test(l)).length >= posts || Date.now() > until) return lines;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /**
   * The log file's whole lines. The gateway may be writing a batch as the file is read: a last
   * line without its newline is not complete yet.
   */
  const completeLines = (logFile: string): string[] => (existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(0, -1).filter(Boolean) : []);

  /** The log-file entries from index `before` on, once `count` of them are written. */
  async function newEntries({ logFile }: Gw, before: number, count: number): Promise<LogEntry[]> {
    const until = Date.now() + 5_000;
    for (;;) {
      const entries = completeLines(logFile).map((l) => JSON.parse(l) as LogEntry);
      if (entries.length >= before + count || Date.now() > until) return entries.slice(before);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const entryCount = ({ logFile }: Gw): number => completeLines(logFile).length;

  const asObject = (body: unknown): Record<string, unknown> =>
    (typeof body === 'string' ? JSON.parse(body) : body) as Record<string, unknown>;
  /** The request as the client sent it. */
  const bodyOf = (e: LogEntry): Record<string, unknown> => asObject(e.request?.body.json);
  /** The request as the gateway sent it upstream (translated requests only). */
  const upstreamBodyOf = (e: LogEntry): Record<string, unknown> => asObject(e.attempts?.[0]?.body.json);

  /**
   * What the log says about translation: the `[caller→upstream]` tag and `dropped <first phrase> +N` on the line,
   * `protocol`, `upstreamProtocol` and `warnings` in the log file, and the translated body
   * beside the client's. `via` undefined: passthrough, none of that.
   */
  function expectTranslation(postLines: string[], posted: LogEntry[], caller: Protocol, via: Protocol | undefined, warnings: string[] = []) {
    for (const line of postLines) {
      if (via === undefined) expect(line).not.toMatch(/\[\w+→\w+\]| dropped/);
      else {
        expect(line).toContain(` [${caller}→${via}] `);
        // The line names the first phrase and counts the rest.
        if (warnings.length > 0) expect(line).toMatch(new RegExp(` dropped .+${warnings.length > 1 ? ` \\+${warnings.length - 1}` : ''}$`));
        else expect(line).not.toContain(' dropped');
      }
    }
    for (const e of posted) {
      expect(e).toMatchObject({ protocol: caller, upstreamProtocol: via ?? caller });
      if (via === undefined) {
        expect(e.warnings).toBeUndefined();
        expect(e.attempts?.map((a) => a.protocol)).toEqual([caller]);
      } else {
        expect(new Set(e.warnings)).toEqual(new Set(warnings));
        const upstream = upstreamBodyOf(e);
        expect(upstream).toMatchObject({ model: e.model, stream: true });
        // Nothing of the caller's protocol-only fields leaks into the translated request.
        expect(JSON.stringify(upstream)).not.toContain(caller === 'messages' ? '"cache_control"' : '"function_call_output"');
      }
    }
  }

  // ---------------------------------------------------------------- Claude Code

  interface ClaudeResult {
    type: string;
    subtype: string;
    is_error: boolean;
    result: string;
    num_turns: number;
    stop_reason: string;
  }

  async function claude(prompt: string, auth: 'ANTHROPIC_API_KEY' | 'ANTHROPIC_AUTH_TOKEN', extraArgs: string[] = [], g: Gw = native) {
    const { gw } = g;
    const linesBefore = gw.lines().length;
    const entriesBefore = entryCount(g);
    const run = await runClient(claudeBin, ['-p', prompt, '--output-format', 'json', ...extraArgs], {
      cwd: freshDir('claude-project'),
      env: claudeCodeEnv(freshDir('claude-home'), gw.url, KEY, auth),
    });
    expect(run.code, `claude exited ${run.code}/${run.signal}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
    const result = JSON.parse(run.stdout) as ClaudeResult;
    return { run, result, linesBefore, entriesBefore };
  }

  /**
   * Claude Code's requests: only messages calls (plus 2.1.197's HEAD / warm-up), all answered
   * by echo, passed through or (`via`) translated with exactly `warnings` dropped.
   */
  /**
   * The entries of the last Claude Code run: those of the session with the most of them. A run before it
   * may still finish a background request of its own (model discovery starts one) after that test has
   * counted its entries, and that one may even be logged last.
   */
  function thisRun(entries: LogEntry[]): LogEntry[] {
    const counts = new Map<string, number>();
    for (const e of entries) if (e.sessionId !== undefined) counts.set(e.sessionId, (counts.get(e.sessionId) ?? 0) + 1);
    let session: string | undefined;
    for (const [id, n] of counts) if (session === undefined || n >= counts.get(session)!) session = id;
    return session === undefined ? entries : entries.filter((e) => e.sessionId === session);
  }

  function expectClaudeTraffic(
    lines: string[],
    entries: LogEntry[],
    posts: number,
    auth: 'x-api-key' | 'authorization',
    { gw }: Gw = native,
    via?: Protocol,
    warnings?: string[],
  ) {
    const postLines = lines.filter((l) => / POST /.test(l));
    expect(postLines, lines.join('\n')).toHaveLength(posts);
    const tag = via === undefined ? '' : `\\[messages→${via}\\] `;
    for (const line of postLines) {
      expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d 200 POST /v1/messages (claude-\\S+) → echo/\\1 ${tag}dev:${KEY_ID} `));
    }
    for (const line of lines.filter((l) => !/ POST /.test(l))) expect(line).toMatch(/ HEAD \/ /);

    const posted = thisRun(entries).filter((e) => e.method === 'POST');
    expect(posted).toHaveLength(posts);
    for (const e of posted) {
      expect(e).toMatchObject({ path: '/v1/messages', status: 200, provider: 'echo', keyGroup: 'dev' });
      expect(e.userAgent).toBe(`claude-cli/${claudeVersion} (external, sdk-cli)`);
      expect(e.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const headers = e.request?.headers ?? {};
      expect(headers['anthropic-version']).toBe('2023-06-01');
      expect(headers[auth]).toBeDefined();
      expect(headers[auth === 'x-api-key' ? 'authorization' : 'x-api-key']).toBeUndefined();
      expect(bodyOf(e).stream).toBe(true);
    }
    expectTranslation(postLines, posted, 'messages', via, warnings);
    expect(gw.output.join('')).not.toContain(KEY);
  }

  it(
    'Claude Code -p with ANTHROPIC_API_KEY (x-api-key) gets the echo',
    async () => {
      const { result, linesBefore, entriesBefore } = await claude('say hi', 'ANTHROPIC_API_KEY');
      expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'say hi', num_turns: 1 });
      const lines = await newLines(native, linesBefore, 1);
      expectClaudeTraffic(lines, await newEntries(native, entriesBefore, lines.length), 1, 'x-api-key');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'Claude Code -p with ANTHROPIC_AUTH_TOKEN (Bearer) gets the echo',
    async () => {
      const { result, linesBefore, entriesBefore } = await claude('say hi with a bearer token', 'ANTHROPIC_AUTH_TOKEN');
      expect(result).toMatchObject({ subtype: 'success', is_error: false, result: 'say hi with a bearer token' });
      const lines = await newLines(native, linesBefore, 1);
      expectClaudeTraffic(lines, await newEntries(native, entriesBefore, lines.length), 1, 'authorization');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "Claude Code with model discovery on reads the gateway's model list and keeps the claude-named models",
    async () => {
      const { gw } = native;
      const home = freshDir('claude-home');
      const entriesBefore = entryCount(native);
      // Discovery is non-essential traffic: CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC would turn it off.
      const run = await runClient(claudeBin, ['-p', 'say hi', '--output-format', 'json'], {
        cwd: freshDir('claude-project'),
        env: {
          ...clientEnv(home),
          ANTHROPIC_BASE_URL: gw.url,
          ANTHROPIC_AUTH_TOKEN: KEY,
          CLAUDE_CODE_ENABLE_GATEWAY_MODEL_DISCOVERY: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
        },
      });
      expect(run.code, `claude exited ${run.code}/${run.signal}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
      const entries = await newEntries(native, entriesBefore, 2);
      const listed = entries.find((e) => e.method === 'GET' && e.path === '/v1/models');
      expect(listed, JSON.stringify(entries.map((e) => `${e.method} ${e.path} ${e.status}`))).toMatchObject({ status: 200, protocol: 'messages' });
      expect(listed!.request?.headers['anthropic-version']).toBe('2023-06-01');
      // What Claude Code kept for its picker: ids that start with claude, with their display names.
      const cacheFile = join(home, '.claude', 'cache', 'gateway-models.json');
      const until = Date.now() + 5_000;
      while (!existsSync(cacheFile) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      const cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as { baseUrl: string; models: { id: string; display_name?: string }[] };
      expect(cached.baseUrl).toBe(gw.url);
      expect(cached.models).toEqual([{ id: 'claude-echo', display_name: 'Echo through the gateway' }]);
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
      const lines = await newLines(native, linesBefore, 2);
      const entries = await newEntries(native, entriesBefore, lines.length);
      expectClaudeTraffic(lines, entries, 2, 'x-api-key');

      const second = bodyOf(thisRun(entries).filter((e) => e.method === 'POST')[1]!);
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

  /** `websockets`: the provider sets `supports_websockets`, so Codex speaks the Responses API over a WebSocket. */
  async function codex(prompt: string, g: Gw = native, { websockets = false } = {}) {
    const { gw } = g;
    const linesBefore = gw.lines().length;
    const entriesBefore = entryCount(g);
    const codexHome = freshDir('codex-home');
    writeFileSync(join(codexHome, 'config.toml'), codexProviderToml('gpt-5-codex', gw.url, websockets ? ['supports_websockets = true'] : []));
    // Codex falls back to HTTP without a word when the WebSocket fails: its own log says which it used.
    const logs = websockets ? { RUST_LOG: 'codex_api::endpoint::responses_websocket=info' } : {};
    const run = await runClient(codexBin, ['exec', '--skip-git-repo-check', prompt], {
      cwd: freshDir('codex-project'),
      env: { ...clientEnv(freshDir('codex-user-home')), CODEX_HOME: codexHome, MODEL_GATEWAY_API_KEY: KEY, ...logs },
    });
    expect(run.code, `codex exited ${run.code}/${run.signal}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
    return { run, linesBefore, entriesBefore };
  }

  /** Codex's requests: only Responses calls, all answered by echo, passed through or (`via`) translated with exactly `warnings` dropped. */
  function expectCodexTraffic(lines: string[], entries: LogEntry[], posts: number, { gw }: Gw = native, via?: Protocol, warnings?: string[]) {
    expect(lines, lines.join('\n')).toHaveLength(posts);
    const tag = via === undefined ? '' : `\\[responses→${via}\\] `;
    for (const line of lines) {
      expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d 200 POST /v1/responses gpt-5-codex → echo/gpt-5-codex ${tag}dev:${KEY_ID} `));
    }
    expect(entries).toHaveLength(posts);
    for (const e of entries) {
      expect(e).toMatchObject({ method: 'POST', path: '/v1/responses', status: 200, provider: 'echo', model: 'gpt-5-codex' });
      expect(e.userAgent).toMatch(new RegExp(`^codex_exec/${codexVersion.replace(/\./g, '\\.')} `));
      const headers = e.request?.headers ?? {};
      expect(headers.authorization).toBeDefined();
      expect(headers.originator).toBe('codex_exec');
      expect(headers.accept).toBe('text/event-stream');
      expect(bodyOf(e)).toMatchObject({ model: 'gpt-5-codex', stream: true, store: false });
    }
    expectTranslation(lines, entries, 'responses', via, warnings);
    expect(gw.output.join('')).not.toContain(KEY);
  }

  it(
    'Codex exec with a custom Responses provider gets the echo',
    async () => {
      const { run, linesBefore, entriesBefore } = await codex('say hi');
      // The final message goes to stdout; banners and warnings go to stderr.
      expect(run.stdout.trim()).toBe('say hi');
      const lines = await newLines(native, linesBefore, 1);
      expectCodexTraffic(lines, await newEntries(native, entriesBefore, lines.length), 1);
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
      const lines = await newLines(native, linesBefore, 2);
      const entries = await newEntries(native, entriesBefore, lines.length);
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

  // ---------------------------------------------------------------- translated: echo speaking only another protocol

  interface ChatToolCall {
    id: string;
    type: string;
    function: { name: string; arguments: string };
  }
  interface ChatMessage {
    role: string;
    content?: unknown;
    tool_calls?: ChatToolCall[];
    tool_call_id?: string;
  }
  interface ChatTool {
    type: string;
    function: { name: string; parameters?: unknown };
  }
  interface MessagesBlock {
    type: string;
    id?: string;
    name?: string;
    text?: string;
    input?: unknown;
    tool_use_id?: string;
    content?: unknown;
  }
  interface MessagesTurn {
    role: string;
    content: string | MessagesBlock[];
  }
  interface MessagesTool {
    name: string;
    input_schema?: unknown;
  }
  interface ResponsesItem {
    type: string;
    role?: string;
    content?: { type: string; text?: string }[];
    name?: string;
    namespace?: string;
    arguments?: string;
    call_id?: string;
    output?: unknown;
  }
  interface ResponsesTool {
    type: string;
    name?: string;
    parameters?: unknown;
    tools?: ResponsesTool[];
  }

  const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
  const posts = (entries: LogEntry[]) => entries.filter((e) => e.method === 'POST');

  /** Claude Code's tool-result turn: its Bash call, then the result paired with it. Returns the call id. */
  function claudeToolTurn(e: LogEntry): string {
    const turns = (bodyOf(e).messages as MessagesTurn[]).filter((m) => m.role !== 'system');
    const call = (turns.at(-2)!.content as MessagesBlock[]).find((b) => b.type === 'tool_use');
    expect(call).toMatchObject({ name: 'Bash', input: { command: 'echo hello Bash' } });
    expect(turns.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'tool_result', tool_use_id: call!.id, content: 'hello Bash' }] });
    return call!.id!;
  }

  /** Codex's tool-result turn: its function call and the output paired with it. */
  function codexToolTurn(e: LogEntry) {
    const input = bodyOf(e).input as ResponsesItem[];
    const call = input.find((i) => i.type === 'function_call')!;
    const output = input.find((i) => i.type === 'function_call_output')!;
    expect(output.call_id).toBe(call.call_id);
    return { call, output, callId: call.call_id!, result: output.output as string };
  }

  /** Codex's function tools as a Chat or Messages upstream must see them: namespaced ones flattened, hosted ones gone. */
  const codexFunctionNames = (body: Record<string, unknown>): string[] =>
    (body.tools as ResponsesTool[]).flatMap((t) =>
      t.type === 'function' ? [t.name!] : t.type === 'namespace' ? (t.tools ?? []).map((f) => `${t.name}__${f.name}`) : [],
    );
  const execCommandSchema = (body: Record<string, unknown>) => (body.tools as ResponsesTool[]).find((t) => t.name === 'exec_command')!.parameters;

  /**
   * What translation drops from these clients' requests, and why each is right:
   * - Claude Code → Chat: nothing. Its `cache_control` hints are not needed by OpenAI, which caches prefixes by
   *   itself, and its `context_management` (clear_thinking, keep "all") clears nothing, so both go without a word.
   * - Codex → Chat or Messages: the `multi_agent_v1` namespace's own description (its functions are
   *   flattened to `multi_agent_v1__*`), the hosted `web_search` tool, and for Chat the reasoning
   *   summary Codex asks for (Chat returns no reasoning text).
   */
  const DROPPED = {
    claudeToChat: [],
    claudeToResponses: [],
    codexToMessages: ['namespace description', 'web_search tool (hosted)'],
    codexToChat: ['namespace description', 'web_search tool (hosted)', 'reasoning summary'],
  };

  it(
    'Claude Code -p through an echo that speaks only Chat: Messages → Chat and back',
    async () => {
      const g = only.chat;
      const { result, linesBefore, entriesBefore } = await claude('say hi', 'ANTHROPIC_API_KEY', [], g);
      expect(result).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'say hi', num_turns: 1, stop_reason: 'end_turn' });
      const lines = await newLines(g, linesBefore, 1);
      const entries = await newEntries(g, entriesBefore, lines.length);
      expectClaudeTraffic(lines, entries, 1, 'x-api-key', g, 'chat', DROPPED.claudeToChat);

      const e = posts(entries)[0]!;
      const caller = bodyOf(e);
      const upstream = upstreamBodyOf(e);
      // Every tool, its schema unchanged.
      const callerTools = caller.tools as MessagesTool[];
      const tools = upstream.tools as ChatTool[];
      expect(tools.map((t) => t.function.name)).toEqual(callerTools.map((t) => t.name));
      expect(tools.find((t) => t.function.name === 'Bash')).toMatchObject({
        type: 'function',
        function: { parameters: callerTools.find((t) => t.name === 'Bash')!.input_schema },
      });
      // The system blocks lead as one system message; the prompt is the user's last text.
      const messages = upstream.messages as ChatMessage[];
      expect(messages[0]!.role).toBe('system');
      // Every system block reaches the Chat upstream, except Claude Code's billing line, which is for Anthropic only.
      for (const block of caller.system as MessagesBlock[]) {
        if (block.text?.startsWith('x-anthropic-billing-header:')) expect(messages[0]!.content).not.toContain(block.text);
        else expect(messages[0]!.content).toContain(block.text);
      }
      expect(messages.filter((m) => m.role === 'user').at(-1)!.content).toEqual(expect.arrayContaining([{ type: 'text', text: 'say hi' }]));
      expect(upstream).toMatchObject({ max_completion_tokens: caller.max_tokens, stream_options: { include_usage: true } });
      // OpenAI takes at most 64 characters; Claude Code's user_id is a ~150-character JSON string.
      expect(upstream.safety_identifier).toBe(sha256((caller.metadata as { user_id: string }).user_id));
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'Claude Code runs the Bash tool through an echo that speaks only Chat, and ends the loop on the result',
    async () => {
      const g = only.chat;
      const { result, linesBefore, entriesBefore } = await claude('echo hello Bash', 'ANTHROPIC_API_KEY', ['--allowedTools', 'Bash(echo:*)'], g);
      expect(result).toMatchObject({ subtype: 'success', is_error: false, num_turns: 2, result: 'Tool result: hello Bash' });
      const lines = await newLines(g, linesBefore, 2);
      const entries = await newEntries(g, entriesBefore, lines.length);
      expectClaudeTraffic(lines, entries, 2, 'x-api-key', g, 'chat', DROPPED.claudeToChat);

      const [first, second] = posts(entries);
      expect((upstreamBodyOf(first!).tools as ChatTool[]).map((t) => t.function.name)).toContain('Bash');
      // The call id echo minted on the Chat side reached Claude Code, came back with the result,
      // and pairs the Chat tool message with the call.
      const id = claudeToolTurn(second!);
      expect(id).toMatch(/^call_echo/);
      const messages = upstreamBodyOf(second!).messages as ChatMessage[];
      expect(messages.at(-2)).toMatchObject({
        role: 'assistant',
        tool_calls: [{ id, type: 'function', function: { name: 'Bash', arguments: JSON.stringify({ command: 'echo hello Bash' }) } }],
      });
      expect(messages.at(-2)!.tool_calls).toHaveLength(1);
      expect(messages.at(-1)).toEqual({ role: 'tool', tool_call_id: id, content: 'hello Bash' });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'Claude Code runs the Bash tool through an echo that speaks only Responses, and ends the loop on the result',
    async () => {
      const g = only.responses;
      const { result, linesBefore, entriesBefore } = await claude('echo hello Bash', 'ANTHROPIC_API_KEY', ['--allowedTools', 'Bash(echo:*)'], g);
      expect(result).toMatchObject({ subtype: 'success', is_error: false, num_turns: 2, result: 'Tool result: hello Bash' });
      const lines = await newLines(g, linesBefore, 2);
      const entries = await newEntries(g, entriesBefore, lines.length);
      expectClaudeTraffic(lines, entries, 2, 'x-api-key', g, 'responses', DROPPED.claudeToResponses);

      const [first, second] = posts(entries);
      const caller = bodyOf(first!);
      const upstream = upstreamBodyOf(first!);
      const callerTools = caller.tools as MessagesTool[];
      const tools = upstream.tools as ResponsesTool[];
      expect(tools.map((t) => t.name)).toEqual(callerTools.map((t) => t.name));
      expect(tools.find((t) => t.name === 'Bash')).toMatchObject({ type: 'function', parameters: callerTools.find((t) => t.name === 'Bash')!.input_schema });
      // Every system block reaches OpenAI, except Claude Code's billing line, which is for Anthropic only.
      for (const block of caller.system as MessagesBlock[]) {
        if (block.text?.startsWith('x-anthropic-billing-header:')) expect(upstream.instructions).not.toContain(block.text);
        else expect(upstream.instructions).toContain(block.text);
      }
      expect(upstream).toMatchObject({ store: false, max_output_tokens: caller.max_tokens });

      const id = claudeToolTurn(second!);
      expect(id).toMatch(/^call_echo/);
      const input = upstreamBodyOf(second!).input as ResponsesItem[];
      expect(input.at(-2)).toMatchObject({ type: 'function_call', call_id: id, name: 'Bash', arguments: JSON.stringify({ command: 'echo hello Bash' }) });
      expect(input.at(-1)).toMatchObject({ type: 'function_call_output', call_id: id, output: 'hello Bash' });
    },
    TEST_TIMEOUT_MS,
  );

  for (const via of [undefined, 'chat', 'messages'] as const) {
    it(
      `Codex with supports_websockets runs exec_command over a WebSocket${via ? ` through an echo that speaks only ${via}` : ''}`,
      async () => {
        const g = via ? only[via] : native;
        const { run, linesBefore, entriesBefore } = await codex('echo hello exec_command', g, { websockets: true });
        expect(run.stderr).toMatch(/connected to Responses WebSocket status=101/);
        expect(run.stderr).not.toMatch(/falling back to HTTP|fallback to HTTP/i);
        expect(run.stdout).toMatch(/Output:\nhello exec_command\n/);
        // The warm-up (generate: false) is answered by the gateway itself; the two turns are logged as POSTs are.
        const lines = await newLines(g, linesBefore, 2);
        expect(lines, lines.join('\n')).toHaveLength(2);
        const tag = via ? `\\[responses→${via}\\] ` : '';
        for (const line of lines) expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d 200 POST /v1/responses \\(websocket\\) gpt-5-codex → echo/gpt-5-codex ${tag}dev:${KEY_ID} `));
        // The JSONL entries are written after the log lines: wait for both, so the next case counts from here.
        expect(await newEntries(g, entriesBefore, 2)).toHaveLength(2);
      },
      TEST_TIMEOUT_MS,
    );
  }

  it(
    'Codex exec through an echo that speaks only Messages: Responses → Messages and back',
    async () => {
      const g = only.messages;
      const { run, linesBefore, entriesBefore } = await codex('say hi', g);
      expect(run.stdout.trim()).toBe('say hi');
      const lines = await newLines(g, linesBefore, 1);
      const entries = await newEntries(g, entriesBefore, lines.length);
      expectCodexTraffic(lines, entries, 1, g, 'messages', DROPPED.codexToMessages);

      const caller = bodyOf(entries[0]!);
      const upstream = upstreamBodyOf(entries[0]!);
      const tools = upstream.tools as MessagesTool[];
      expect(tools.map((t) => t.name)).toEqual(codexFunctionNames(caller));
      expect(tools.find((t) => t.name === 'exec_command')!.input_schema).toEqual(execCommandSchema(caller));
      // Developer messages become the system blocks; the prompt is the last user text.
      const developer = (caller.input as ResponsesItem[]).filter((i) => i.type === 'message' && i.role === 'developer');
      expect((upstream.system as MessagesBlock[]).map((b) => b.text)).toEqual(developer.flatMap((m) => (m.content ?? []).map((c) => c.text)));
      const messages = upstream.messages as MessagesTurn[];
      expect(messages.at(-1)).toMatchObject({ role: 'user' });
      // The conversation's end carries a cache breakpoint: Codex relies on automatic caching, Anthropic needs a marker.
      expect((messages.at(-1)!.content as MessagesBlock[]).at(-1)).toEqual({ type: 'text', text: 'say hi', cache_control: { type: 'ephemeral' } });
      expect(upstream.max_tokens).toBeGreaterThan(0); // required by Messages; Codex sends no limit
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'Codex runs exec_command through an echo that speaks only Messages, and ends the loop on the result',
    async () => {
      const g = only.messages;
      const { run, linesBefore, entriesBefore } = await codex('echo hello exec_command', g);
      expect(run.stdout).toMatch(/^Tool result: /);
      expect(run.stdout).toMatch(/Process exited with code 0[\s\S]*Output:\nhello exec_command\n/);
      const lines = await newLines(g, linesBefore, 2);
      const entries = await newEntries(g, entriesBefore, lines.length);
      expectCodexTraffic(lines, entries, 2, g, 'messages', DROPPED.codexToMessages);

      expect((upstreamBodyOf(entries[0]!).tools as MessagesTool[]).map((t) => t.name)).toContain('exec_command');
      // The tool_use id echo minted on the Messages side is Codex's call_id, and pairs the tool_result with the call.
      const { call, callId, result } = codexToolTurn(entries[1]!);
      expect(call).toMatchObject({ name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo hello exec_command' }) });
      expect(callId).toMatch(/^toolu_echo/);
      expect(result).toMatch(/Output:\nhello exec_command\n/);
      const messages = upstreamBodyOf(entries[1]!).messages as MessagesTurn[];
      expect(messages.at(-2)).toEqual({
        role: 'assistant',
        content: [{ type: 'tool_use', id: callId, name: 'exec_command', input: { cmd: 'echo hello exec_command' } }],
      });
      // The tool result ends the conversation so far, so it carries the cache breakpoint Codex never sends itself.
      expect(messages.at(-1)).toEqual({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: callId, content: result, cache_control: { type: 'ephemeral' } }],
      });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'Codex runs exec_command through an echo that speaks only Chat, and ends the loop on the result',
    async () => {
      const g = only.chat;
      const { run, linesBefore, entriesBefore } = await codex('echo hello exec_command', g);
      expect(run.stdout).toMatch(/^Tool result: /);
      expect(run.stdout).toMatch(/Process exited with code 0[\s\S]*Output:\nhello exec_command\n/);
      const lines = await newLines(g, linesBefore, 2);
      const entries = await newEntries(g, entriesBefore, lines.length);
      expectCodexTraffic(lines, entries, 2, g, 'chat', DROPPED.codexToChat);

      const caller = bodyOf(entries[0]!);
      const tools = upstreamBodyOf(entries[0]!).tools as ChatTool[];
      expect(tools.map((t) => t.function.name)).toEqual(codexFunctionNames(caller));
      expect(tools.find((t) => t.function.name === 'exec_command')!.function.parameters).toEqual(execCommandSchema(caller));

      const { call, callId, result } = codexToolTurn(entries[1]!);
      expect(call).toMatchObject({ name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo hello exec_command' }) });
      expect(callId).toMatch(/^call_echo/);
      const messages = upstreamBodyOf(entries[1]!).messages as ChatMessage[];
      expect(messages.at(-2)).toMatchObject({
        role: 'assistant',
        tool_calls: [{ id: callId, type: 'function', function: { name: 'exec_command', arguments: call.arguments } }],
      });
      expect(messages.at(-1)).toEqual({ role: 'tool', tool_call_id: callId, content: result });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'Codex gets a namespaced tool call back as its own (namespace + name) from an echo that speaks only Chat',
    async () => {
      // Chat knows no namespaces: Codex's multi_agent_v1.close_agent goes up flattened, and the
      // call echo makes to the flat name must reach Codex as {namespace, name} again, or Codex
      // cannot run it. (close_agent on an unknown id fails inside Codex; that failure is the result.)
      const g = only.chat;
      const { run, linesBefore, entriesBefore } = await codex('multi_agent_v1__close_agent', g);
      expect(run.stdout).toMatch(/^Tool result: /);
      const lines = await newLines(g, linesBefore, 2);
      const entries = await newEntries(g, entriesBefore, lines.length);
      expectCodexTraffic(lines, entries, 2, g, 'chat', DROPPED.codexToChat);

      const { call, callId, result } = codexToolTurn(entries[1]!);
      expect(call).toMatchObject({
        name: 'close_agent',
        namespace: 'multi_agent_v1',
        arguments: JSON.stringify({ target: 'multi_agent_v1__close_agent' }),
      });
      const messages = upstreamBodyOf(entries[1]!).messages as ChatMessage[];
      expect(messages.at(-2)!.tool_calls).toEqual([
        { id: callId, type: 'function', function: { name: 'multi_agent_v1__close_agent', arguments: call.arguments } },
      ]);
      expect(messages.at(-1)).toEqual({ role: 'tool', tool_call_id: callId, content: result });
    },
    TEST_TIMEOUT_MS,
  );
});

// ---------------------------------------------------------------- `model-gateway env` output, applied as printed

describeReal('real clients started with what `model-gateway env` prints', () => {
  const claudeBin = clientBin('claude');
  const codexBin = clientBin('codex');
  let scratch: string;
  let gw: TestGateway;
  let configFile: string;
  const freshDir = freshDirs(() => scratch);

  /** Only echo, under its own name: Claude's and Codex's default names do not route, so the printed model settings must. */
  const ECHO_ONLY = { providers: { echo: { type: 'echo' } }, models: { echo: { provider: 'echo' } }, keyGroups: { dev: { keys: [KEY] } } } as WrittenConfig;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'mgw-real-env-'));
    const { startGateway } = await import('../helpers/start-gateway.js');
    gw = await startGateway(ECHO_ONLY);
    // The config file names the running gateway's port, so `env` takes the URL from the config as a user's would.
    configFile = join(scratch, 'gateway.config.json');
    writeFileSync(configFile, JSON.stringify({ ...ECHO_ONLY, server: { host: '127.0.0.1', port: Number(new URL(gw.url).port) } }));
  });
  afterAll(async () => {
    await gw?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** `model-gateway env <client> --config FILE`, in-process: its stdout. Without --key, so the lines refer to $MODEL_GATEWAY_KEY. */
  async function printed(client: string): Promise<string> {
    const { run } = await import('#src/cli/main.js');
    let out = '';
    const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: () => true }, env: {}, cwd: scratch, stopSignal: () => new Promise<string>(() => undefined) };
    expect(await run(['env', client, '--config', configFile], io)).toBe(0);
    return out;
  }

  /** Runs `command` in a POSIX shell after the printed export lines, as a user pasting them would. */
  const afterExports = (exports: string, command: string, args: string[], opts: { cwd: string; env: Record<string, string> }) =>
    runClient('sh', ['-c', `${exports}\nexec "$0" "$@"`, command, ...args], opts);

  const userEnv = (home: string) => ({
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    // What `model-gateway init` tells users to export; the printed lines refer to it.
    MODEL_GATEWAY_KEY: KEY,
  });

  it(
    'Claude Code -p with the `env claude-code` exports reaches echo',
    async () => {
      const exports = await printed('claude-code');
      expect(exports).toContain('export ANTHROPIC_MODEL=echo\n');
      expect(exports).toContain('export ANTHROPIC_AUTH_TOKEN="$MODEL_GATEWAY_KEY"\n');
      const before = gw.lines().length;
      const result = await afterExports(exports, claudeBin, ['-p', 'hello from env claude-code', '--output-format', 'json'], {
        cwd: freshDir('claude-project'),
        env: userEnv(freshDir('claude-home')),
      });
      expect(result.code, `stdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ subtype: 'success', is_error: false, result: 'hello from env claude-code' });
      const posts = gw.lines().slice(before).filter((l) => / POST /.test(l));
      expect(posts.length).toBeGreaterThan(0);
      for (const line of posts) expect(line).toMatch(new RegExp(` 200 POST /v1/messages echo → echo/echo dev:${KEY_ID} `));
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'Codex exec with the `env codex` config.toml and export reaches echo',
    async () => {
      const text = await printed('codex');
      // The printed text: a comment, the config.toml lines, then a comment and the export line for the shell.
      const lines = text.split('\n');
      const shellStart = lines.findIndex((l) => l.startsWith('# and start codex'));
      expect(shellStart).toBeGreaterThan(1);
      const toml = lines.slice(1, shellStart).join('\n');
      const exports = lines.slice(shellStart).join('\n');
      expect(toml).toContain('wire_api = "responses"');
      expect(exports).toContain('export MODEL_GATEWAY_API_KEY="$MODEL_GATEWAY_KEY"');
      const codexHome = freshDir('codex-home');
      writeFileSync(join(codexHome, 'config.toml'), toml);

      const before = gw.lines().length;
      const result = await afterExports(exports, codexBin, ['exec', '--skip-git-repo-check', 'hello from env codex'], {
        cwd: freshDir('codex-project'),
        env: { ...userEnv(freshDir('codex-user-home')), CODEX_HOME: codexHome },
      });
      expect(result.code, `stdout: ${result.stdout}\nstderr: ${result.stderr}`).toBe(0);
      expect(result.stdout.trim()).toBe('hello from env codex');
      const posts = gw.lines().slice(before);
      expect(posts.length).toBeGreaterThan(0);
      for (const line of posts) expect(line).toMatch(new RegExp(` 200 POST /v1/responses echo → echo/echo dev:${KEY_ID} `));
    },
    TEST_TIMEOUT_MS,
  );
});

// ---------------------------------------------------------------- strict reasoning models behind translated routes

describeReal('Claude Code through strict reasoning models (fake upstreams on loopback)', () => {
  const claudeBin = clientBin('claude');
  let scratch: string;
  let gw: TestGateway;
  let chat: FakeUpstream;
  let responses: FakeUpstream;
  const freshDir = freshDirs(() => scratch);

  /** Two tool calls in two turns, then the answer: a loop of three requests, each needing the reasoning of the calls before it. */
  const STEPS: ToolStep[] = [
    { tool: 'Bash', input: { command: 'echo first step', description: 'Print the first step' } },
    { tool: 'Bash', input: { command: 'echo second step', description: 'Print the second step' } },
  ];
  const FINAL = 'Both steps ran.';

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'mgw-real-strict-'));
    const { startGateway } = await import('../helpers/start-gateway.js');
    const { startFakeUpstream } = await import('../helpers/fake-upstream.js');
    const { strictChatModel, strictResponsesModel } = await import('../helpers/strict-reasoning-upstreams.js');
    [chat, responses] = await Promise.all([startFakeUpstream(), startFakeUpstream()]);
    chat.always(strictChatModel(STEPS, FINAL));
    responses.always(strictResponsesModel(STEPS, FINAL));
    gw = await startGateway({
      providers: {
        deepseek: { type: 'openai-compatible', baseUrl: `${chat.url}/v1`, retries: 0 },
        openai: { type: 'openai', baseUrl: `${responses.url}/v1`, apiKey: 'sk-upstream', protocols: ['responses'], retries: 0 },
      },
      models: { 'deepseek-reasoner': { provider: 'deepseek' }, 'gpt-5-reasoner': { provider: 'openai', upstreamModel: 'gpt-5' } },
      keyGroups: { dev: { keys: [KEY], models: ['*'] } },
    } as WrittenConfig, { verbose: true, logFile: join(scratch, 'gateway.jsonl') });
  });
  afterAll(async () => {
    await gw?.close();
    await Promise.all([chat, responses].map((u) => u?.close()));
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** Claude Code -p on `model`, allowed to run echo only. */
  async function claudeOn(model: string, prompt: string) {
    const run = await runClient(claudeBin, ['-p', prompt, '--output-format', 'json', '--model', model, '--allowedTools', 'Bash(echo:*)'], {
      cwd: freshDir('claude-project'),
      env: claudeCodeEnv(freshDir('claude-home'), gw.url, KEY),
    });
    expect(run.code, `claude exited ${run.code}/${run.signal}\nstdout: ${run.stdout}\nstderr: ${run.stderr}\nlog: ${gw.lines().join('\n')}`).toBe(0);
    return JSON.parse(run.stdout) as { subtype: string; is_error: boolean; result: string; num_turns: number };
  }

  const logFile = () => join(scratch, 'gateway.jsonl');
  /** The log file's complete entries (a last line without its newline is still being written). */
  const logEntries = (): LogEntry[] =>
    existsSync(logFile()) ? readFileSync(logFile(), 'utf8').split('\n').slice(0, -1).filter(Boolean).map((l) => JSON.parse(l) as LogEntry) : [];
  /** The three POSTs of one loop, once they are logged. */
  async function loopEntries(before: number): Promise<LogEntry[]> {
    const until = Date.now() + 5_000;
    for (;;) {
      const posted = logEntries().slice(before).filter((e) => e.method === 'POST');
      if (posted.length >= 3 || Date.now() > until) return posted;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /**
   * Three translated, streamed messages calls, each dropping `warnings[n]`; from the second on, Claude Code
   * sends back one thinking block per earlier tool call, sealed by the gateway, right before that call.
   */
  function expectLoop(posted: LogEntry[], model: string, route: string, via: Protocol, warnings: string[][]) {
    expect(posted).toHaveLength(3);
    for (const [n, e] of posted.entries()) {
      expect(e).toMatchObject({ path: '/v1/messages', status: 200, model, protocol: 'messages', upstreamProtocol: via });
      expect(`${e.provider}/${upstreamModelOf(e)}`).toBe(route);
      expect(new Set(e.warnings ?? [])).toEqual(new Set(warnings[n]));
      const body = asObject(e.request?.body.json);
      expect(body.stream).toBe(true);
      const blocks = (body.messages as { role: string; content: string | { type: string; signature?: string }[] }[])
        .filter((m) => m.role === 'assistant')
        .map((m) => (typeof m.content === 'string' ? [] : m.content.map((b) => b.type)));
      expect(blocks).toEqual(Array.from({ length: n }, () => ['thinking', 'tool_use']));
      expect(JSON.stringify(body.messages).match(/"signature":"mgw1\./g) ?? []).toHaveLength(n);
    }
  }
  const asObject = (body: unknown): Record<string, unknown> => (typeof body === 'string' ? JSON.parse(body) : body) as Record<string, unknown>;
  const upstreamModelOf = (e: LogEntry) => asObject(e.attempts?.[0]?.body.json).model;

  it(
    'Claude Code runs a streamed tool loop of three turns on a DeepSeek-style model that refuses a tool-call turn without its reasoning_content',
    async () => {
      chat.received.length = 0;
      const entriesBefore = logEntries().length;
      const result = await claudeOn('deepseek-reasoner', 'Run the two steps.');
      expect(result).toMatchObject({ subtype: 'success', is_error: false, result: FINAL, num_turns: 3 });
      const calls = chat.received.filter((r) => r.url === '/v1/chat/completions');
      expect(calls).toHaveLength(3);
      for (const [n, r] of calls.entries()) {
        const body = r.json as { stream: boolean; messages: { role: string; reasoning_content?: string; tool_calls?: { id: string; function: { arguments: string } }[] }[] };
        expect(body.stream).toBe(true);
        // Every earlier call came back with the reasoning the model gave with it, in DeepSeek's own field.
        const assistants = body.messages.filter((m) => m.role === 'assistant');
        expect(assistants.map((m) => [m.tool_calls?.[0]?.id, m.reasoning_content])).toEqual(
          Array.from({ length: n }, (_, k) => [`call_strict_${k}`, reasoningOf(k)]),
        );
        expect(assistants.map((m) => JSON.parse(m.tool_calls![0]!.function.arguments))).toEqual(STEPS.slice(0, n).map((s) => s.input));
        // The tool ran: its output is the echoed text.
        const outputs = body.messages.filter((m) => m.role === 'tool').map((m) => (m as { content?: unknown }).content);
        expect(outputs).toEqual(['first step', 'second step'].slice(0, n));
      }
      // Claude Code kept the reasoning as sealed thinking blocks; a compatible server gets Claude Code's
      // mid-conversation system text as user text and has no use for its cache breakpoints.
      const dropped = ['mid-conversation system message as user text', 'cache_control'];
      expectLoop(await loopEntries(entriesBefore), 'deepseek-reasoner', 'deepseek/deepseek-reasoner', 'chat', [dropped.slice(0, 1), dropped, dropped]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'Claude Code runs a streamed tool loop of three turns on a Responses reasoning model that refuses a function call without its encrypted reasoning item',
    async () => {
      responses.received.length = 0;
      const entriesBefore = logEntries().length;
      const result = await claudeOn('gpt-5-reasoner', 'Run the two steps.');
      expect(result).toMatchObject({ subtype: 'success', is_error: false, result: FINAL, num_turns: 3 });
      const calls = responses.received.filter((r) => r.url === '/v1/responses');
      expect(calls).toHaveLength(3);
      for (const [n, r] of calls.entries()) {
        const body = r.json as { stream: boolean; include?: string[]; input: { type: string; id?: string; call_id?: string; encrypted_content?: string; output?: unknown }[] };
        expect(body).toMatchObject({ stream: true, include: expect.arrayContaining(['reasoning.encrypted_content']) });
        // Each earlier call is preceded by its own reasoning item, id and encrypted content as the model gave them.
        const carried = body.input.filter((i) => i.type === 'reasoning' || i.type === 'function_call').map((i) => (i.type === 'reasoning' ? [i.id, i.encrypted_content] : i.call_id));
        expect(carried).toEqual(Array.from({ length: n }, (_, k) => [[`rs_strict_${k}`, encryptedOf(k)], `call_strict_${k}`]).flat());
        const outputs = body.input.filter((i) => i.type === 'function_call_output').map((i) => i.output);
        expect(outputs).toEqual(['first step', 'second step'].slice(0, n));
      }
      expectLoop(await loopEntries(entriesBefore), 'gpt-5-reasoner', 'openai/gpt-5', 'responses', [[], [], []]);
    },
    TEST_TIMEOUT_MS,
  );
});

// ---------------------------------------------------------------- Codex compaction on a translated route

/**
 * Codex compacts when the context passes `model_auto_compact_token_limit`, mid-turn once a tool has
 * run. How depends on the provider: a custom provider compacts locally (its own summary prompt as an
 * ordinary request, the answer kept as the summary); Codex's built-in OpenAI provider, pointed at the
 * gateway with `openai_base_url`, compacts remotely: an ordinary request whose input ends with a
 * `compaction_trigger` item, answered by exactly one opaque `compaction` output item.
 */
describeReal('Codex compacts a session on a model behind a Chat upstream (fake upstream on loopback)', () => {
  const codexBin = clientBin('codex');
  let scratch: string;
  let gw: TestGateway;
  let chat: FakeUpstream;
  const freshDir = freshDirs(() => scratch);

  const SUMMARY = 'Goal: print a word with echo. Done: ran `echo compact me`, it printed "compact me". Next: report it.';
  const FINAL = 'The command printed "compact me".';
  /** Codex compacts once the context holds more than this: the fake's answers report far more. */
  const AUTO_COMPACT_LIMIT = 10_000;
  /** The start of Codex's own compaction prompt (its local compaction). */
  const CODEX_PROMPT = 'You are performing a CONTEXT CHECKPOINT COMPACTION.';

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'mgw-real-compact-'));
    const { startGateway } = await import('../helpers/start-gateway.js');
    const { startFakeUpstream } = await import('../helpers/fake-upstream.js');
    const { compactingChatModel } = await import('../helpers/compacting-chat-model.js');
    chat = await startFakeUpstream();
    chat.always(
      compactingChatModel({
        step: { tool: 'exec_command', input: { cmd: 'echo compact me' } },
        summary: SUMMARY,
        finalText: FINAL,
        promptTokens: AUTO_COMPACT_LIMIT * 5,
        clientPrompt: CODEX_PROMPT,
      }),
    );
    gw = await startGateway(
      {
        providers: { compatible: { type: 'openai-compatible', baseUrl: `${chat.url}/v1`, retries: 0 } },
        models: { 'gpt-5-codex': { provider: 'compatible', upstreamModel: 'kimi-coder' } },
        keyGroups: { dev: { keys: [KEY], models: ['*'] } },
      } as WrittenConfig,
      { verbose: true, logFile: join(scratch, 'gateway.jsonl') },
    );
  });
  afterAll(async () => {
    await gw?.close();
    await chat?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** `codex exec` with `toml` as its config and the gateway key in `keyVar`. */
  async function codexExec(toml: string[], keyVar: string, prompt: string) {
    const codexHome = freshDir('codex-home');
    writeFileSync(join(codexHome, 'config.toml'), [...toml, ''].join('\n'));
    return runClient(codexBin, ['exec', '--skip-git-repo-check', prompt], {
      cwd: freshDir('codex-project'),
      env: {
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        HOME: freshDir('codex-user-home'),
        LANG: 'C.UTF-8',
        NO_COLOR: '1',
        CODEX_HOME: codexHome,
        [keyVar]: KEY,
      },
    });
  }
  type ChatBody = { stream?: boolean; tools?: unknown[]; messages: { role: string; content?: unknown }[] };
  const texts = (body: ChatBody, role: string) => body.messages.filter((m) => m.role === role).map((m) => textOf(m.content));

  it(
    'Codex exec on a custom provider compacts mid-turn with its own prompt through the translated route, then carries on from the summary',
    async () => {
      chat.received.length = 0;
      const linesBefore = gw.lines().length;
      const run = await codexExec(
        [
          'model = "gpt-5-codex"',
          'model_provider = "model-gateway"',
          `model_auto_compact_token_limit = ${AUTO_COMPACT_LIMIT}`,
          '',
          '[model_providers.model-gateway]',
          'name = "model-gateway"',
          `base_url = "${gw.url}/v1"`,
          'env_key = "MODEL_GATEWAY_API_KEY"',
          'wire_api = "responses"',
        ],
        'MODEL_GATEWAY_API_KEY',
        'Print "compact me" with echo.',
      );
      expect(run.code, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
      expect(run.stdout.trim()).toBe(FINAL);
      expect(run.stderr).toContain('context compacted');

      // The turn with the tool call, the summary request (the tool's result in it), the turn after it.
      const [turn, summarise, after, ...more] = chat.received.map((r) => r.json as ChatBody);
      expect(more).toEqual([]);
      expect(texts(turn!, 'tool')).toEqual([]);
      expect(texts(summarise!, 'tool')).toEqual([expect.stringMatching(/Output:\ncompact me\n/)]);
      expect(texts(summarise!, 'user').at(-1)).toContain(CODEX_PROMPT);
      // The history after compaction: the user's request and the summary, no tool call or result.
      expect(texts(after!, 'tool')).toEqual([]);
      expect(texts(after!, 'user')).toEqual(expect.arrayContaining(['Print "compact me" with echo.', expect.stringContaining(SUMMARY)]));
      expect(after!.messages.some((m) => m.role === 'assistant')).toBe(false);

      const posted = gw.lines().slice(linesBefore);
      expect(posted, posted.join('\n')).toHaveLength(3);
      for (const line of posted) expect(line).toMatch(/ 200 POST \/v1\/responses gpt-5-codex → compatible\/kimi-coder \[responses→chat\] /);
    },
    TEST_TIMEOUT_MS,
  );

  // The gateway asks the model for the summary, answers the trigger with one `compaction` item of
  // its own (the summary, sealed) and opens that item into the summary on the next turns.
  it(
    "Codex exec on its built-in OpenAI provider compacts remotely (compaction_trigger) with the gateway's compaction",
    async () => {
      chat.received.length = 0;
      const run = await codexExec(
        ['model = "gpt-5-codex"', `openai_base_url = "${gw.url}/v1"`, `model_auto_compact_token_limit = ${AUTO_COMPACT_LIMIT}`],
        'CODEX_API_KEY',
        'Print "compact me" with echo.',
      );
      expect(run.stderr).not.toContain('Error running remote compact task');
      expect(run.code, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(0);
      expect(run.stdout.trim()).toBe(FINAL);
      // The gateway asked the model for the summary, and the turn after it carried the summary on.
      const bodies = chat.received.map((r) => r.json as ChatBody);
      expect(bodies.some((b) => texts(b, 'user').at(-1)?.includes(SUMMARY_INSTRUCTION))).toBe(true);
      expect(texts(bodies.at(-1)!, 'user')).toEqual(expect.arrayContaining([expect.stringContaining(SUMMARY)]));
    },
    TEST_TIMEOUT_MS,
  );
});
