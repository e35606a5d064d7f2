/**
 * `model-gateway claude` and `model-gateway codex` with the REAL clients: one command starts a
 * gateway in the background (its log in a file, not on the client's screen), runs the client
 * pointed at it, and stops the gateway once the client has exited, leaving no process behind.
 * The clients complete a tool loop on a fake Anthropic upstream (a model that calls the client's
 * shell tool, then says what it printed: claude-tool-loop.ts): Claude Code natively, Codex
 * translated from Responses. A second launch while a gateway runs uses it and leaves it running.
 *
 * Opt-in, like real-clients.test.ts: MODEL_GATEWAY_REAL_CLIENTS_DIR names the folder holding the
 * clients; without it the file is skipped.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../helpers/fake-upstream.js';
import type { Received } from '../helpers/received.js';
import { CLIENTS_DIR, CLIENT_TIMEOUT_MS, clientBin, clientEnv, freshDirs, TEST_TIMEOUT_MS } from '../helpers/real-clients.js';

const KEY = 'mgw-launch-key-0123456789abcdef0123';
const MODEL = 'claude-sonnet-4-5-20250929';
const BIN = fileURLToPath(new URL('../../bin/model-gateway.js', import.meta.url));

type Json = Record<string, unknown>;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!CLIENTS_DIR)('model-gateway claude and codex: the real clients, a background gateway', () => {
  let scratch: string;
  let upstream: FakeUpstream;
  let helpers: {
    shellToolModel: typeof import('../helpers/claude-tool-loop.js')['shellToolModel'];
    finalTextOf: typeof import('../helpers/claude-tool-loop.js')['finalTextOf'];
    messageSse: typeof import('../helpers/claude-tool-loop.js')['messageSse'];
    runClient: typeof import('../helpers/run-client.js')['runClient'];
    sendJson: typeof import('../helpers/fake-upstream.js')['sendJson'];
  };
  const freshDir = freshDirs(() => scratch);

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'mgw-launch-'));
    const [model, run, upstreams] = await Promise.all([import('../helpers/claude-tool-loop.js'), import('../helpers/run-client.js'), import('../helpers/fake-upstream.js')]);
    helpers = { shellToolModel: model.shellToolModel, finalTextOf: model.finalTextOf, messageSse: model.messageSse, runClient: run.runClient, sendJson: upstreams.sendJson };
    upstream = await upstreams.startFakeUpstream();
  });
  afterAll(async () => {
    await upstream?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** The fake Anthropic API: the model runs `command` with the client's shell tool, then reports what it printed. */
  function serve(command: string) {
    upstream.reset();
    const model = helpers.shellToolModel(command);
    upstream.always((req: Received, res: ServerResponse) => {
      const body = req.json as Json;
      const message = model(body, String(body.model));
      if (body.stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(helpers.messageSse(message));
      } else helpers.sendJson(res, 200, message);
    });
  }

  /** A project folder with a config on a free port, and the data folder the launcher keeps its files in. */
  function project() {
    const dir = freshDir('project');
    const config = {
      server: { host: '127.0.0.1', port: 0 },
      providers: { anthropic: { type: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-ant-fake', retries: 0 }, echo: { type: 'echo' } },
      models: { [MODEL]: { provider: 'anthropic' }, echo: { provider: 'echo' } },
      keyGroups: { dev: { keys: [KEY] } },
    };
    writeFileSync(join(dir, 'gateway.config.json'), JSON.stringify(config));
    return { dir, data: freshDir('data') };
  }

  /** `model-gateway <client> …` as a user runs it: the clients on PATH, the key in MODEL_GATEWAY_KEY. */
  async function launch(where: { dir: string; data: string }, client: string, args: readonly string[], model = MODEL) {
    const home = freshDir(`${client}-home`);
    const path = `${dirname(clientBin('claude'))}${delimiter}${process.env.PATH ?? ''}`;
    const run = await helpers.runClient(process.execPath, [BIN, client, '--model', model, ...args], {
      cwd: where.dir,
      env: {
        ...clientEnv(home),
        PATH: path,
        MODEL_GATEWAY_KEY: KEY,
        MODEL_GATEWAY_DATA_DIR: where.data,
        DISABLE_AUTOUPDATER: '1',
      },
      timeoutMs: CLIENT_TIMEOUT_MS,
    });
    const log = join(where.data, 'background', 'gateway.log');
    const gatewayLog = existsSync(log) ? readFileSync(log, 'utf8') : '(no log)';
    expect(run.code, `${client} exited ${run.code}/${run.signal}\nstdout: ${run.stdout}\nstderr: ${run.stderr}\ngateway log: ${gatewayLog}`).toBe(0);
    const pid = Number(/in the background \(pid (\d+);/.exec(run.stderr)?.[1]);
    return { ...run, pid, gatewayLog, home };
  }

  it(
    'model-gateway claude: Claude Code runs Bash through a gateway started for it, which is gone once it exits',
    async () => {
      const printed = 'hello from a launched claude';
      serve(`echo ${printed}`);
      const where = project();
      const run = await launch(where, 'claude', ['-p', 'Print the line with echo.', '--output-format', 'json', '--allowedTools', 'Bash(echo:*)']);
      const result = JSON.parse(run.stdout) as { result: string; num_turns: number };
      expect(result).toMatchObject({ result: helpers.finalTextOf(printed), num_turns: 2 });
      // The gateway's log went to its file, not to the client's screen; the launcher said where it is.
      expect(run.stderr).toMatch(/^model-gateway: gateway at http:\/\/127\.0\.0\.1:\d+, in the background/m);
      expect(run.stderr).toMatch(/^model-gateway: inspector: http:\/\/127\.0\.0\.1:\d+\/_inspector\/\?token=/m);
      expect(run.stdout).not.toContain('POST /v1/messages');
      expect(run.gatewayLog).toMatch(new RegExp(`200 POST /v1/messages ${MODEL} → anthropic/${MODEL} `));
      expect(run.stderr).toContain('the background gateway stopped');
      expect(Number.isInteger(run.pid) && run.pid > 0).toBe(true);
      expect(alive(run.pid)).toBe(false);
      expect(existsSync(join(where.data, 'background', 'gateway.json'))).toBe(false);
      // The key reached the gateway only: never the upstream.
      expect(JSON.stringify(upstream.received.map((r) => r.headers))).not.toContain(KEY);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'model-gateway claude on the echo provider: the answer echoes the prompt',
    async () => {
      const where = project();
      const run = await launch(where, 'claude', ['-p', 'say hi from the echo model'], 'echo');
      expect(run.stdout).toContain('say hi from the echo model');
      expect(run.gatewayLog).toMatch(/200 POST \/v1\/messages echo → echo\/echo /);
      expect(alive(run.pid)).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "model-gateway codex: Codex runs its shell tool, translated, without a config.toml of the user's being written",
    async () => {
      const printed = 'hello from a launched codex';
      serve(`echo ${printed}`);
      const where = project();
      const run = await launch(where, 'codex', ['exec', '--skip-git-repo-check', 'Print the line with echo.']);
      // Codex's shell tool reports the exit code and the output; the model quotes them.
      expect(run.stdout).toMatch(/^The command printed: /m);
      expect(run.stdout).toMatch(new RegExp(`Process exited with code 0[\\s\\S]*Output:\\n${printed}\\n`));
      expect(run.gatewayLog).toMatch(new RegExp(`200 POST /v1/responses ${MODEL} → anthropic/${MODEL} .*\\[responses→messages\\]`));
      expect(alive(run.pid)).toBe(false);
      // The provider came in as -c overrides: no config.toml was written for it.
      expect(existsSync(join(run.home, '.codex', 'config.toml'))).toBe(false);
      expect(upstream.received.length).toBeGreaterThan(1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a launch while a gateway runs in the background uses it and leaves it running; status shows it, stop stops it',
    async () => {
      serve('echo second');
      const where = project();
      const { spawn } = await import('node:child_process');
      // The first launcher's client is a shell that waits: its gateway stays up meanwhile.
      const stub = join(freshDir('stub-bin'), 'claude');
      writeFileSync(stub, '#!/bin/sh\nsleep 30\n', { mode: 0o755 });
      const first = spawn(process.execPath, [BIN, 'claude'], {
        cwd: where.dir,
        env: { ...clientEnv(freshDir('first-home')), PATH: `${dirname(stub)}${delimiter}${process.env.PATH ?? ''}`, MODEL_GATEWAY_KEY: KEY, MODEL_GATEWAY_DATA_DIR: where.data },
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      });
      let firstErr = '';
      first.stderr.setEncoding('utf8').on('data', (s: string) => (firstErr += s));
      try {
        await expect.poll(() => /pid (\d+);/.exec(firstErr)?.[1], { timeout: 20_000 }).toBeDefined();
        const pid = Number(/pid (\d+);/.exec(firstErr)![1]);
        const second = await launch(where, 'claude', ['-p', 'Print the line with echo.', '--output-format', 'json', '--allowedTools', 'Bash(echo:*)']);
        expect(second.pid).toBe(pid);
        expect(second.stderr).not.toContain('stopped');
        expect(alive(pid)).toBe(true);

        // status names it; stop stops it, though a launcher still runs.
        const command = (name: string) =>
          helpers.runClient(process.execPath, [BIN, name], { cwd: where.dir, env: { ...clientEnv(freshDir('status-home')), MODEL_GATEWAY_DATA_DIR: where.data }, timeoutMs: 20_000 });
        const status = await command('status');
        expect(status.code).toBe(0);
        expect(status.stdout).toMatch(new RegExp(`^background gateway: running at http://127\\.0\\.0\\.1:\\d+ \\(pid ${pid}\\)$`, 'm'));
        expect(status.stdout).toMatch(/^clients started through it: 1$/m);
        const stopped = await command('stop');
        expect(stopped.stdout).toMatch(/^stopped the background gateway at /);
        expect(alive(pid)).toBe(false);
        expect((await command('status')).stdout).toMatch(/^no gateway running/);
        expect((await command('stop')).code).toBe(3);
        process.kill(-first.pid!, 'SIGTERM');
        await expect.poll(() => first.exitCode, { timeout: 15_000 }).not.toBeNull();
      } finally {
        try {
          process.kill(-first.pid!, 'SIGKILL');
        } catch {
          // gone
        }
      }
    },
    TEST_TIMEOUT_MS,
  );
});
