/**
 * The command table. Commands load lazily, so `--help` does not load the server.
 * This is the only place that decides exit codes.
 */
import { Argument, Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError, ExitError } from '../errors.js';
import { DEFAULT_MAX_LINE_MIB } from '../log/recording-limit.js';
import { printableLines } from '../log/terminal-text.js';
import { VERSION } from '../version.js';
import type { CheckFlags } from './commands/check.js';
import type { EnvFlags } from './commands/env.js';
import type { InitFlags } from './commands/init.js';
import type { InspectFlags } from './commands/inspect.js';
import type { KeysNewFlags } from './commands/keys.js';
import type { ModelsFlags } from './commands/models.js';
import type { ReplayFlags } from './commands/replay.js';
import type { ServeFlags } from './commands/serve.js';
import type { LaunchFlags, Launched } from './commands/launch.js';
import type { StatusFlags } from './commands/status.js';
import type { UsageFlags } from './commands/usage.js';
import { processIo, type CliIo } from './io.js';
import type { ClientName } from './snippets.js';
import { holdYoungGeneration, releaseYoungGeneration } from './young-generation.js';

function parseMs(value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1) throw new InvalidArgumentError('expected a whole number of milliseconds, at least 1.');
  return ms;
}

/** Spelled out here, not imported, so `--help` loads no command code. */
const CLIENT_NAMES = ['claude-code', 'codex', 'gemini-cli', 'openai', 'anthropic', 'shell'] as const satisfies readonly ClientName[];

/** The clients `model-gateway <client>` runs, spelled out here for the same reason. */
const LAUNCHED_CLIENTS = [
  ['claude', 'Claude Code'],
  ['codex', 'Codex'],
  ['gemini', 'the Gemini CLI'],
] as const satisfies readonly (readonly [Launched, string])[];

function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number, at least 1.');
  return n;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('expected an integer from 0 to 65535.');
  return port;
}

/** What a command that runs another program ends with: that program's exit code. */
interface Outcome {
  code: number;
}

export function createProgram(io: CliIo, outcome: Outcome = { code: 0 }): Command {
  const program = new Command('model-gateway')
    .description('A local LLM gateway: OpenAI Responses, Chat Completions and Anthropic Messages on one base URL.')
    .version(VERSION, '-v, --version')
    .exitOverride()
    // Options after a launched client's name are the client's (see the client commands below).
    .enablePositionalOptions()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });

  program
    .command('serve')
    .description('start the gateway')
    .option('-c, --config <file>', 'config file (default: search the current folder, else the built-in default)')
    .option('--host <host>', 'interface to listen on (overrides server.host)')
    .option('-p, --port <port>', 'port to listen on, 0 for any free port (overrides server.port)', parsePort)
    .option(
      '-v, --verbose',
      'also print headers (secrets redacted, the client\'s telemetry on one line), bodies and streamed answers put together; -vv: every header and the raw stream events',
      (_value: string, level: number) => level + 1,
      0,
    )
    .option('--log-file <file>', 'record every exchange (requests, upstream attempts, answers and stream events with times) as a JSON line in this file')
    .option('--no-log-bodies', "with --log-file: a line of facts per request (status, model, tokens, times), without bodies")
    .option('--no-color', 'no colours in the output')
    .option('--watch', 'reload the config file when it changes (the default with a config file)')
    .option('--no-watch', 'serve the config as loaded at start, ignoring later edits')
    .option('--no-inspector', 'no traffic inspector page at /_inspector/ (and no exchanges kept in memory for it)')
    .option('--inspector-keep <n>', 'exchanges the inspector keeps in memory (default 300)', parseCount)
    .option('--inspector-memory <MiB>', 'memory the kept exchanges may use, in MiB (default 64)', parseCount)
    .option('--inspector-history', 'keep the recent past while no inspector page is open (overrides inspector.history)')
    .option('--no-inspector-history', 'capture and keep exchanges only while an inspector page is open (overrides inspector.history)')
    .option('--inspector-stream-buffer <KiB>', "events an open page may leave unread before its live stream is cut, in KiB (default 1024)", parseCount)
    .option('--inspector-session-idle <hours>', 'an inspector sign-in ends after this many hours unused (default 24)', parseCount)
    .option('--inspector-session-max <hours>', 'and after this many hours however used; also how long the link works unopened (default 168)', parseCount)
    // Set by `model-gateway claude|codex|gemini` for the gateway it starts in the background (see cli/background.ts).
    .addOption(new Option('--background-state <file>').hideHelp())
    .option('--metrics-port <port>', 'serve Prometheus metrics at /metrics on this port of metrics.host (default 127.0.0.1), 0 for any free port (turns metrics on; overrides metrics.port)', parsePort)
    .addHelpText(
      'after',
      '\nExamples:\n  $ npx model-gateway serve\n  $ npx model-gateway serve --config gateway.config.yaml --port 0 --verbose\n  $ npx model-gateway serve -vv\n  $ npx model-gateway serve --config gateway.config.json --no-watch\n',
    )
    .action(async (flags: ServeFlags) => {
      // Before the command's modules load: they are most of what the start allocates (cli/young-generation.ts).
      holdYoungGeneration();
      try {
        const { serve } = await import('./commands/serve.js');
        await serve(flags, io);
      } finally {
        // serve lets it go once it listens; a start that failed, in a process that goes on (a test's), does here.
        releaseYoungGeneration();
      }
    });

  program
    .command('init')
    .description('write a starter gateway.config.json from what this machine has (provider keys, local model servers)')
    .option('--dir <dir>', 'folder to write it in (default: the current folder; created if missing)')
    .option('--force', 'overwrite an existing gateway.config.json')
    .option('--hash', 'store the new key in the file as a sha256: digest, not as a ${MODEL_GATEWAY_KEY} reference')
    .option('--no-color', 'no colours in the output')
    .addHelpText(
      'after',
      '\nFinds OPENAI_API_KEY, ANTHROPIC_API_KEY and OPENROUTER_API_KEY in the environment, and Ollama (:11434),\n' +
        'LM Studio (:1234) and vLLM (:8000) on 127.0.0.1. Always adds the built-in echo model.\n' +
        '\nExamples:\n  $ npx model-gateway init\n  $ npx model-gateway init --hash --dir ~/gateway\n  $ npx model-gateway init --force\n',
    )
    .action(async (flags: InitFlags) => {
      const { init } = await import('./commands/init.js');
      await init(flags, io);
    });

  program
    .command('check')
    .description('validate the config and show what it does; --probe also calls every provider')
    .option('-c, --config <file>', 'config file (default: search the current folder, else the built-in default)')
    .option('--probe', 'send each model a tiny request, a stream and a forced tool call; exit 1 on any problem')
    .option('--timeout <ms>', 'with --probe: the limit for each request, in milliseconds (default 10000)', parseMs)
    .option('--no-color', 'no colours in the output')
    .addHelpText(
      'after',
      '\nExamples:\n  $ npx model-gateway check\n  $ npx model-gateway check --config gateway.config.yaml --probe\n  $ npx model-gateway check --probe --timeout 30000\n',
    )
    .action(async (flags: CheckFlags) => {
      const { check } = await import('./commands/check.js');
      await check(flags, io);
    });

  program
    .command('models')
    .description("list what a key's group may call, with providers, descriptions, protocols and features")
    .option('-k, --key <key>', 'the gateway key (default: $MODEL_GATEWAY_KEY); never printed')
    .option('-c, --config <file>', 'config file (default: search the current folder, else the built-in default)')
    .option('--no-color', 'no colours in the output')
    .addHelpText('after', '\nExamples:\n  $ npx model-gateway models\n  $ npx model-gateway models --key "$CI_GATEWAY_KEY" --config gateway.config.json\n')
    .action(async (flags: ModelsFlags) => {
      const { models } = await import('./commands/models.js');
      await models(flags, io);
    });

  program
    .command('usage')
    .description('requests, tokens (with cache reads and writes), cost and cache hit rate from the usage ledger')
    .option('--since <span>', 'the last hours, days or weeks: 24h, 7d, 2w (default: this month)')
    .option('--month <YYYY-MM>', 'one calendar month, in server.timeZone')
    .option('--by <what>', 'one row per day, group, key, model, provider or session (default: model)')
    .option('--json', 'the rows as JSON')
    .option('--csv', 'the rows as CSV (spreadsheet-safe)')
    .option('-c, --config <file>', 'config file for server.dataDir and server.timeZone (default: search the current folder)')
    .option('--no-color', 'no colours in the output')
    .addHelpText('after', '\nExamples:\n  $ npx model-gateway usage\n  $ npx model-gateway usage --since 7d --by day\n  $ npx model-gateway usage --month 2026-11 --by key --csv > november.csv\n')
    .action(async (flags: UsageFlags) => {
      const { usage } = await import('./commands/usage.js');
      await usage(flags, io);
    });

  const keys = program.command('keys').description('gateway keys (see: keys new)');
  keys
    .command('new')
    .description('print a new key, its sha256: form and the config entry for it, one per line')
    .option('-g, --group <group>', 'the key group it is for (named in the hint on stderr)')
    .option('-n, --name <name>', 'a name for the traffic log, put in the config entry')
    .option('--no-color', 'no colours in the output')
    // Only the key lines go to stdout, so `keys new | head -1` is the key whatever else is asked.
    .configureOutput({ writeOut: (s) => io.stderr.write(s), writeErr: (s) => io.stderr.write(s) })
    .addHelpText(
      'after',
      '\nstdout: line 1 the key (for the client), line 2 its sha256: form, line 3 the entry for keyGroups.<group>.keys.\n' +
        '\nExamples:\n  $ npx model-gateway keys new --group ci --name ci-runner\n  $ KEY=$(npx model-gateway keys new | head -1)\n',
    )
    .action(async (flags: KeysNewFlags) => {
      const { keysNew } = await import('./commands/keys.js');
      keysNew(flags, io);
    });

  program
    .command('env')
    .description('print exactly what to paste to point a client at the gateway')
    .addArgument(new Argument('<client>', `one of: ${CLIENT_NAMES.join(', ')}`).choices(CLIENT_NAMES))
    .option('-k, --key <key>', 'put this gateway key in the lines (default: refer to $MODEL_GATEWAY_KEY)')
    .option('-m, --model <model>', "the model the client should ask for (Claude Code: all its model variables; Codex: model; Gemini CLI: GEMINI_MODEL)")
    .option('-c, --config <file>', 'config file for the URL and model names (default: search the current folder)')
    .option('--url <url>', "the gateway's base URL (default: from the config's server section); skips reading the config")
    .addHelpText(
      'after',
      '\nExamples:\n  $ eval "$(npx model-gateway env claude-code)" && claude\n  $ npx model-gateway env codex --model qwen2.5-coder:7b\n' +
        '  $ npx model-gateway env openai --key "$MODEL_GATEWAY_KEY" --url http://127.0.0.1:9000\n',
    )
    .action(async (client: ClientName, flags: EnvFlags) => {
      const { env } = await import('./commands/env.js');
      await env(client, flags, io);
    });

  program
    .command('replay')
    .description('send recorded requests (a --log-file recording) through a gateway again and compare the answers')
    .argument('<file>', 'the recording: one JSON exchange per line, as serve --log-file writes it')
    .option('--id <id>', 'replay only the exchange with this request id')
    .option('-m, --model <model>', "send this model instead of the recorded body's")
    .option('--to <url>', "the gateway's base URL (default: from the config's server section, else http://127.0.0.1:8787)")
    .option('-k, --key <key>', 'the gateway key to send (default: $MODEL_GATEWAY_KEY); recordings hold none')
    .option('-c, --config <file>', 'config file to read the address from when --to is not given')
    .option('--max-line <MiB>', `skip lines of the file longer than this, in MiB (default ${DEFAULT_MAX_LINE_MIB})`, parseCount)
    .option('--no-color', 'no colours in the output')
    .addHelpText(
      'after',
      '\nExit code 1 when a replay gets another status, or a stream ends without its end event (or one is JSON, the other a stream);\n' +
        'also when an exchange is refused (a method, path or header that could send it elsewhere than the gateway) or a line of\n' +
        'the file is not an exchange: both are reported and skipped, and the rest replayed.\n' +
        '\nExamples:\n  $ npx model-gateway replay requests.jsonl\n  $ npx model-gateway replay requests.jsonl --id req_1a2b3c000004 --model qwen-coder\n' +
        '  $ npx model-gateway replay requests.jsonl --to http://127.0.0.1:9000 --key "$OTHER_KEY"\n',
    )
    .action(async (file: string, flags: ReplayFlags) => {
      const { replay } = await import('./commands/replay.js');
      await replay(file, flags, io);
    });

  program
    .command('inspect')
    .description('open the inspector page on a recording (a serve --log-file file), without serving traffic')
    .argument('<file>', 'the recording: one JSON exchange per line, as serve --log-file writes it')
    .option('--host <host>', 'interface to listen on (default 127.0.0.1)')
    .option('-p, --port <port>', 'port to listen on (default 0: any free port)', parsePort)
    .option('--keep <n>', 'show the last n exchanges of the file (default 300)', parseCount)
    .option('--memory <MiB>', 'memory the exchanges may use, in MiB (default 64)', parseCount)
    .option('--max-line <MiB>', `skip lines of the file longer than this, in MiB (default ${DEFAULT_MAX_LINE_MIB})`, parseCount)
    .option('--no-color', 'no colours in the output')
    .addHelpText('after', '\nPrints a one-time link to the page; Ctrl-C stops it.\n\nExamples:\n  $ npx model-gateway inspect requests.jsonl\n  $ npx model-gateway inspect requests.jsonl --keep 2000 --port 8788\n')
    .action(async (file: string, flags: InspectFlags) => {
      const { inspect } = await import('./commands/inspect.js');
      await inspect(file, flags, io);
    });

  for (const [client, what] of LAUNCHED_CLIENTS) {
    program
      .command(client)
      .description(`run ${what} on the gateway, starting one in the background if none is running (its arguments after ours)`)
      .argument('[args...]', `passed to ${client} as they are`)
      .option('-c, --config <file>', 'config file (default: search the current folder, else the built-in default)')
      .option('-k, --key <key>', 'the gateway key the client uses (default: $MODEL_GATEWAY_KEY)')
      .option('-m, --model <model>', 'the model the client asks for (as npx model-gateway env --model)')
      .option('--url <url>', 'use the gateway running at this URL (as its banner shows) rather than the configured address')
      .passThroughOptions()
      .allowUnknownOption()
      .addHelpText(
        'after',
        `\nOptions for ${client} itself go after its name and ours; a first argument of ${client}'s ends ours.\n` +
          `The background gateway's log goes to a file (see: npx model-gateway status); it stops when the last client started this way exits.\n` +
          `\nExamples:\n  $ npx model-gateway ${client}\n  $ npx model-gateway ${client} --model echo -- --help\n`,
      )
      .action(async (args: string[], flags: LaunchFlags) => {
        const { launch } = await import('./commands/launch.js');
        outcome.code = await launch(client, args, flags, io);
      });
  }

  program
    .command('status')
    .description('show the gateway running in the background (or on the configured address)')
    .option('-c, --config <file>', 'config file for the address and data folder (default: search the current folder)')
    .option('--link', 'also ask the running gateway for a fresh one-time inspector link (read from its key in the data folder: the local user only)')
    .action(async (flags: StatusFlags) => {
      const { status } = await import('./commands/status.js');
      await status(flags, io);
    });

  program
    .command('stop')
    .description('stop the gateway running in the background')
    .option('-c, --config <file>', 'config file for the data folder (default: search the current folder)')
    .action(async (flags: StatusFlags) => {
      const { stop } = await import('./commands/status.js');
      await stop(flags, io);
    });

  return program;
}

/** Runs the CLI; resolves with the exit code (0 ok, 1 problem found, 2 usage error). */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const outcome = { code: 0 };
  const program = createProgram(io, outcome);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return outcome.code;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return err.exitCode === 0 ? 0 : 2;
    }
    // Messages quote what they are about (a config value, a recording's field, an upstream answer): printed escaped.
    if (err instanceof ConfigError || err instanceof ExitError) {
      io.stderr.write(`${printableLines(err.message)}\n`);
      return err instanceof ExitError ? err.exitCode : 1;
    }
    io.stderr.write(`${printableLines(err instanceof Error ? (err.stack ?? err.message) : String(err))}\n`);
    return 1;
  }
}
