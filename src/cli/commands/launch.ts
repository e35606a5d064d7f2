/**
 * `model-gateway claude|codex|gemini [args…]`: runs the client pointed at the gateway, in one
 * command. The gateway on the configured address is used when one answers there; otherwise one is
 * started in the background (background.ts), its log kept in a file rather than on the client's
 * screen, and stopped when the last client a launcher started has exited. The client gets what
 * `model-gateway env` prints, passed in its environment (and, for Codex, as `-c` overrides): the
 * user's own config files are not edited.
 */
import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { hashKey, generateKey } from '../../config/keys.js';
import { loadConfig } from '../../config/load.js';
import type { Config } from '../../config/types.js';
import { ExitError } from '../../errors.js';
import { printable, printableJson } from '../../log/terminal-text.js';
import { dataDir } from '../../storage/data-dir.js';
import { assertNever } from '../../assert-never.js';
import { attach, detach, probeGateway, runningBackground, startBackground, stopBackground } from '../background.js';
import { backgroundFiles, type BackgroundFiles, type BackgroundState, readKey, writeKey } from '../background-files.js';
import type { CliIo } from '../io.js';
import { gatewayUrlFlag } from '../url-flag.js';
import { claudeCodeEnv, claudeModelFor, clientUrl, CODEX_ENV_KEY, codexModelFor, GATEWAY_KEY_VAR, geminiCliEnv, geminiModelFor, type EnvVar } from '../snippets.js';

export const LAUNCHED = ['claude', 'codex', 'gemini'] as const;
export type Launched = (typeof LAUNCHED)[number];

export interface LaunchFlags {
  config?: string;
  key?: string;
  model?: string;
  /** A running gateway to use (as its banner prints it), rather than the configured address or a background one. */
  url?: string;
}

/** Where the gateway is, and whether a launcher started it. */
interface Gateway {
  readonly url: string;
  readonly background: BackgroundState | undefined;
}

export async function launch(client: Launched, args: readonly string[], flags: LaunchFlags, io: CliIo): Promise<number> {
  const loaded = await loadConfig({ ...(flags.config !== undefined ? { configPath: flags.config } : {}), cwd: io.cwd, env: io.env });
  const { config } = loaded;
  const files = backgroundFiles(dataDir({ configured: config.server.dataDir, env: io.env, platform: process.platform, home: homedir() }));
  const builtIn = loaded.source.filepath === undefined;
  const key = keyFor(config, flags, io, files, builtIn);

  // The built-in default config takes the key its gateway is started with.
  const gateway = flags.url !== undefined ? await given(flags.url) : await findOrStart(config, files, { configFile: loaded.source.filepath, env: { ...io.env, ...(builtIn ? { [GATEWAY_KEY_VAR]: key.value } : {}) } });
  if (builtIn && key.source !== 'given') {
    if (gateway.background === undefined) {
      throw new ExitError(`a gateway runs at ${printable(gateway.url)} on a key this command cannot know: set ${GATEWAY_KEY_VAR} to it (its banner showed it), or pass --key.`, 1);
    }
    if (key.source === 'new') writeKey(files, key.value);
  }
  const say = (line: string) => io.stderr.write(`model-gateway: ${line}\n`);
  say(gateway.background ? `gateway at ${printable(gateway.url)}, in the background (pid ${gateway.background.pid}; its log: ${printable(files.log)})` : `gateway at ${printable(gateway.url)}`);
  if (gateway.background?.inspectorUrl !== undefined) say(`inspector: ${printable(gateway.background.inspectorUrl)}`);
  else if (!gateway.background) say('inspector: the link is in the terminal that runs the gateway');

  attach(files);
  try {
    return await run(commandFor(client, { config, url: gateway.url, key: key.value, model: flags.model, files }), args, io.env);
  } finally {
    const others = detach(files);
    if (others.length === 0 && gateway.background !== undefined) {
      const stopped = await stopBackground(files, gateway.background);
      say(stopped ? 'the background gateway stopped (no client of it is left)' : `the background gateway (pid ${gateway.background.pid}) did not stop in time`);
    }
  }
}

interface Key {
  readonly value: string;
  /** From --key or the environment; kept for the background gateway; or made now, for the built-in default config. */
  readonly source: 'given' | 'kept' | 'new';
}

/**
 * The gateway key the client gets: --key, else $MODEL_GATEWAY_KEY, else the one kept for a running
 * background gateway, else (the built-in default config only, which takes whatever key its
 * gateway is started with) a new one. A config file's keys must be given: the file holds them, if
 * at all, only as `${VARIABLE}` references or digests.
 */
function keyFor(config: Config, flags: LaunchFlags, io: CliIo, files: BackgroundFiles, builtIn: boolean): Key {
  const given = flags.key ?? (io.env[GATEWAY_KEY_VAR] || undefined);
  if (given !== undefined) {
    if (!config.keys.has(hashKey(given)) && !builtIn) {
      throw new ExitError(`the gateway key given (id ${hashKey(given).slice(0, 8)}) is not in any key group of the config.`, 1);
    }
    return { value: given, source: 'given' };
  }
  const kept = readKey(files);
  if (builtIn) return kept !== undefined ? { value: kept, source: 'kept' } : { value: generateKey(), source: 'new' };
  throw new ExitError(`no gateway key: pass --key, or set ${GATEWAY_KEY_VAR} to a key of the config's key groups.`, 1);
}

/** The gateway at `--url`, which must answer as one. */
async function given(url: string): Promise<Gateway> {
  const base = gatewayUrlFlag(url);
  if ((await probeGateway(base)).kind !== 'gateway') throw new ExitError(`no model-gateway answers at ${printable(base)}.`, 1);
  return { url: base, background: undefined };
}

async function findOrStart(config: Config, files: BackgroundFiles, start: Parameters<typeof startBackground>[1]): Promise<Gateway> {
  const background = await runningBackground(files);
  if (background !== undefined) return { url: background.url, background };
  if (config.server.port !== 0) {
    const url = clientUrl(config.server);
    const probe = await probeGateway(url);
    if (probe.kind === 'gateway') return { url, background: undefined };
    if (probe.kind === 'other') throw new ExitError(`something other than model-gateway answers at ${printable(url)}: stop it, or set server.port to another port.`, 1);
  }
  try {
    const state = await startBackground(files, start);
    return { url: state.url, background: state };
  } catch (err) {
    // Another launcher may have started one at the same moment.
    const raced = await runningBackground(files);
    if (raced !== undefined) return { url: raced.url, background: raced };
    throw new ExitError(`could not start the gateway in the background: ${printable((err as Error).message)}`, 1);
  }
}

interface CommandInput {
  readonly config: Config;
  readonly url: string;
  readonly key: string;
  readonly model: string | undefined;
  readonly files: BackgroundFiles;
}

interface Command {
  readonly command: string;
  /** Arguments before the user's. */
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

const envOf = (vars: readonly EnvVar[]): Record<string, string> => Object.fromEntries(vars.map((v) => [v.name, 'text' in v.value ? v.value.text : '']));

function commandFor(client: Launched, input: CommandInput): Command {
  const { config, url, key, model } = input;
  switch (client) {
    case 'claude':
      return { command: 'claude', args: [], env: envOf(claudeCodeEnv({ url, key: { text: key }, claudeModel: claudeModelFor(config, model), codexModel: '' })) };
    case 'codex': {
      // Codex reads providers only from its config; `-c` sets them for this run without touching ~/.codex/config.toml.
      const q = (s: string) => printableJson(s);
      const provider = 'model_providers.model-gateway';
      const overrides = [
        `model=${q(codexModelFor(config, model))}`,
        'model_provider="model-gateway"',
        `${provider}.name="model-gateway"`,
        `${provider}.base_url=${q(`${url}/v1`)}`,
        `${provider}.env_key="${CODEX_ENV_KEY}"`,
        `${provider}.wire_api="responses"`,
      ];
      return { command: 'codex', args: overrides.flatMap((o) => ['-c', o]), env: { [CODEX_ENV_KEY]: key } };
    }
    case 'gemini': {
      // Run without a prompt, the CLI takes its auth type from GEMINI_DEFAULT_AUTH_TYPE; with one (-p), only from a settings
      // file: the system one it is pointed at holds only that (and no usage statistics). The CLI skips that file when a
      // folder above it is writable by others, as the default data folder is not.
      const settings = join(input.files.dir, 'gemini-cli-settings.json');
      writeFileSync(settings, `${JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } })}\n`, { mode: 0o600 });
      const vars = geminiCliEnv({ url, key: { text: key }, geminiModel: geminiModelFor(config, model), codexModel: '' });
      return { command: 'gemini', args: [], env: { ...envOf(vars), GEMINI_DEFAULT_AUTH_TYPE: 'gemini-api-key', GEMINI_CLI_SYSTEM_SETTINGS_PATH: settings } };
    }
    default:
      return assertNever(client);
  }
}

/**
 * Runs the client on this terminal and resolves with its exit code. Ctrl-C reaches the client
 * (the terminal sends it to both): the launcher ignores it and waits for the client to finish. A
 * SIGTERM or SIGHUP (the terminal closed) is passed on to the client, and the launcher still
 * cleans up after it.
 */
function run(command: Command, userArgs: readonly string[], env: CliIo['env']): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command.command, [...command.args, ...userArgs], { stdio: 'inherit', env: { ...env, ...command.env } });
    const ignore = () => undefined;
    const forward = (signal: NodeJS.Signals) => {
      if (child.exitCode === null) child.kill(signal);
    };
    process.on('SIGINT', ignore);
    process.on('SIGTERM', forward);
    process.on('SIGHUP', forward);
    const done = () => {
      process.off('SIGINT', ignore);
      process.off('SIGTERM', forward);
      process.off('SIGHUP', forward);
    };
    child.once('error', (err) => {
      done();
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      reject(new ExitError(missing ? `${command.command} is not installed (or not on PATH).` : `could not run ${command.command}: ${err.message}`, 127));
    });
    child.once('exit', (code, signal) => {
      done();
      resolve(code ?? (signal ? 128 + signalNumber(signal) : 1));
    });
  });
}

const signalNumber = (signal: NodeJS.Signals): number => ({ SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 })[signal as string] ?? 1;
