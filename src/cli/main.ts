/**
 * The command table. Commands load lazily, so `--help` does not load the server.
 * This is the only place that decides exit codes.
 */
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { ConfigError, ExitError } from '../errors.js';
import { VERSION } from '../version.js';
import { processIo, type CliIo } from './io.js';

export interface ServeFlags {
  config?: string;
  host?: string;
  port?: number;
  verbose?: boolean;
  logFile?: string;
  color: boolean;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('expected an integer from 0 to 65535.');
  return port;
}

export function createProgram(io: CliIo): Command {
  const program = new Command('model-gateway')
    .description('A local LLM gateway: OpenAI Responses, Chat Completions and Anthropic Messages on one base URL.')
    .version(VERSION, '-v, --version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });

  program
    .command('serve')
    .description('start the gateway')
    .option('-c, --config <file>', 'config file (default: search the current folder, else the built-in default)')
    .option('--host <host>', 'interface to listen on (overrides server.host)')
    .option('-p, --port <port>', 'port to listen on, 0 for any free port (overrides server.port)', parsePort)
    .option('--verbose', 'also print request and response headers (secrets redacted) and bodies')
    .option('--log-file <file>', 'append one JSON object per request to this file')
    .option('--no-color', 'no colours in the output')
    .addHelpText(
      'after',
      '\nExamples:\n  $ model-gateway serve\n  $ model-gateway serve --config gateway.config.yaml --port 0 --verbose\n',
    )
    .action(async (flags: ServeFlags) => {
      const { serve } = await import('./commands/serve.js');
      await serve(flags, io);
    });

  return program;
}

/** Runs the CLI; resolves with the exit code (0 ok, 1 problem found, 2 usage error). */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const program = createProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end through here with exit code 0.
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof ConfigError || err instanceof ExitError) {
      io.stderr.write(`${err.message}\n`);
      return err instanceof ExitError ? err.exitCode : 1;
    }
    io.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}
