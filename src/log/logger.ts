/**
 * Where request records go: a line on stdout (plus detail with --verbose) and,
 * with --log-file, one JSON object per line appended to a file.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { ChalkInstance } from 'chalk';
import { formatDetail, formatLine, toJsonEntry } from './format.js';
import type { RequestRecord } from './record.js';

export interface LogSink {
  write(text: string): unknown;
}

export interface Logger {
  readonly verbose: boolean;
  /** Whether it prints or writes whole exchanges (--verbose, --log-file), so they must be captured. */
  readonly capturesExchanges: boolean;
  request(record: RequestRecord): void;
  /** Free-form notices (startup, shutdown, reload), on the same stream. */
  info(text: string): void;
  close(): Promise<void>;
}

export interface LoggerOptions {
  readonly out: LogSink;
  readonly chalk: ChalkInstance;
  readonly verbose?: boolean;
  readonly logFile?: string;
}

export function createLogger(options: LoggerOptions): Logger {
  const { out, chalk } = options;
  const verbose = options.verbose ?? false;
  let file: WriteStream | undefined;
  if (options.logFile) {
    file = createWriteStream(options.logFile, { flags: 'a' });
    // A log file that cannot be written must not take the gateway down.
    file.on('error', (err) => out.write(chalk.red(`log file ${options.logFile}: ${err.message}\n`)));
  }
  // Lines are gathered and written once per turn of the event loop: under load that is one write
  // (a system call when stdout is a file) for many requests instead of one each, and none of it
  // happens while a response is being sent.
  let lines = '';
  let entries = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (lines !== '') out.write(lines);
    if (entries !== '') file?.write(entries);
    lines = '';
    entries = '';
  };
  const schedule = () => {
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  return {
    verbose,
    capturesExchanges: verbose || file !== undefined,
    request(record) {
      lines += `${formatLine(record, chalk)}\n${verbose ? formatDetail(record, chalk) : ''}`;
      if (file) entries += `${JSON.stringify(toJsonEntry(record))}\n`;
      schedule();
    },
    // Notices are rare (start, reload, stop) and must not wait: written at once, after any pending lines.
    info(text) {
      lines += `${text}\n`;
      flush();
    },
    close() {
      flush();
      return new Promise((resolve) => (file ? file.end(resolve) : resolve()));
    },
  };
}
