/**
 * An `ora` spinner on the command's stderr, for slow work (probing providers, looking for
 * local servers). On a terminal it spins; elsewhere (pipes, CI, tests) ora writes a plain
 * start line and the end line. The end symbols come from our own chalk, so they follow
 * the same colour rules as everything else the CLI prints.
 */
import type { ChalkInstance } from 'chalk';
import ora from 'ora';
import type { CliIo } from './io.js';

export interface Spinner {
  succeed(text: string): void;
  warn(text: string): void;
  fail(text: string): void;
}

export function startSpinner(io: CliIo, c: ChalkInstance, text: string): Spinner {
  const spinner = ora({
    text,
    // ora only draws on a real TTY stream (cursor moves); our Writer is one there, and a plain sink elsewhere.
    stream: io.stderr as NodeJS.WritableStream,
    // Leave stdin alone: a probe must not swallow what the user types next.
    discardStdin: false,
    isEnabled: io.stderr.isTTY === true && io.env.CI === undefined && io.env.TERM !== 'dumb',
  }).start();
  return {
    succeed: (t) => void spinner.stopAndPersist({ symbol: c.green('✔'), text: t }),
    warn: (t) => void spinner.stopAndPersist({ symbol: c.yellow('⚠'), text: t }),
    fail: (t) => void spinner.stopAndPersist({ symbol: c.red('✖'), text: t }),
  };
}
