/**
 * Where request records go: a line on stdout (plus detail with --verbose) and,
 * with --log-file, one JSON object per line appended to a file (see jsonl.ts): the whole
 * exchange, or with --no-log-bodies only the facts of the line.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { ChalkInstance } from 'chalk';
import { formatDetail, type Verbosity } from './detail.js';
import { formatLine } from './format.js';
import { exchangeLine, type LineParts } from './jsonl.js';
import type { RequestRecord } from './record.js';
import { printable } from './terminal-text.js';

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
  /** Formats and writes the request lines still waiting for their batch, now. */
  flush(): void;
  close(): Promise<void>;
}

export interface LoggerOptions {
  readonly out: LogSink;
  readonly chalk: ChalkInstance;
  /** What is printed under each line: nothing (0, false), the detail (1, true: `--verbose`), or the detail raw (2: `-vv`). */
  readonly verbose?: boolean | Verbosity;
  readonly logFile?: string;
  /** Whole exchanges in the log file (default), or false: a line of facts per request (--no-log-bodies). */
  readonly logBodies?: boolean;
}

export function createLogger(options: LoggerOptions): Logger {
  const { out, chalk } = options;
  const level: Verbosity = typeof options.verbose === 'number' ? options.verbose : options.verbose ? 1 : 0;
  const verbose = level > 0;
  const logBodies = options.logBodies ?? true;
  let file: WriteStream | undefined;
  if (options.logFile) {
    file = createWriteStream(options.logFile, { flags: 'a' });
    // A log file that cannot be written must not take the gateway down.
    file.on('error', (err) => out.write(chalk.red(`log file ${printable(options.logFile ?? '')}: ${printable(err.message)}\n`)));
  }
  // Records wait LINE_BATCH_MS and are then formatted and written together, off the request path: a line
  // formatted as each response closes costs the request far more than the same line in a batch
  // (docs/performance.md, "Logging"). A timer, unlike a per-turn setImmediate, also lets the
  // event loop block in its poll when there is nothing else to do.
  let pending: RequestRecord[] = [];
  let lineTimer: NodeJS.Timeout | undefined;
  const flushLines = () => {
    clearTimeout(lineTimer);
    lineTimer = undefined;
    const records = pending;
    pending = [];
    let lines = '';
    const parts: LineParts = [];
    for (const record of records) {
      // Outside any request now: a record that cannot be formatted must cost its line, not the process.
      try {
        lines += `${formatLine(record, chalk)}\n${level === 0 ? '' : formatDetail(record, chalk, level)}`;
        if (file) for (const part of exchangeLine(record, logBodies)) parts.push(part);
      } catch (err) {
        lines += `could not log ${printable(record.id)}: ${printable(err instanceof Error ? err.message : String(err))}\n`;
      }
    }
    if (lines !== '') out.write(lines);
    if (parts.length > 0) addEntries(parts);
  };
  // Log-file entries wait longer, for FILE_BATCH_MS or FILE_BATCH_BYTES: each write is a trip to
  // libuv's thread pool. They wait as bytes: lines kept as strings that long outlive young-generation
  // collections, each of which copies them, and are then promoted to the old generation.
  let entries: Buffer[] = [];
  let entryBytes = 0;
  let fileTimer: NodeJS.Timeout | undefined;
  const addEntries = (parts: LineParts) => {
    for (const b of packParts(parts)) {
      entries.push(b);
      entryBytes += b.length;
    }
    if (entryBytes >= FILE_BATCH_BYTES) flushEntries();
    // Unref'd: a pending batch must not keep the process alive; close() writes it.
    else fileTimer ??= setTimeout(flushEntries, FILE_BATCH_MS).unref();
  };
  const flushEntries = () => {
    clearTimeout(fileTimer);
    fileTimer = undefined;
    if (entries.length > 0 && file) {
      // One system call, through cork.
      file.cork();
      for (const b of entries) file.write(b);
      file.uncork();
    }
    entries = [];
    entryBytes = 0;
  };
  const flush = () => {
    flushLines();
    flushEntries();
  };
  return {
    verbose,
    capturesExchanges: verbose || (file !== undefined && logBodies),
    request(record) {
      pending.push(record);
      lineTimer ??= setTimeout(flushLines, LINE_BATCH_MS).unref();
    },
    // Notices are rare (start, reload, stop) and must not wait: written at once, after any pending lines.
    info(text) {
      flush();
      out.write(`${text}\n`);
    },
    flush,
    close() {
      flush();
      return new Promise((resolve) => (file ? file.end(resolve) : resolve()));
    },
  };
}

/** How long request lines may wait to be formatted and printed: unnoticeable to someone watching. */
const LINE_BATCH_MS = 10;
/** How long log-file entries may wait to be written, and how much of them. */
const FILE_BATCH_MS = 50;
const FILE_BATCH_BYTES = 256 * 1024;

/** Bodies at least this large are written as they are, not copied into the buffer around them. */
const WRITE_AS_IS = 16 * 1024;

/**
 * Lines as bytes: text and small bodies joined into one buffer, large bodies kept as they are,
 * so a 100 KB request body is not copied once more.
 */
function packParts(parts: LineParts): Buffer[] {
  const out: Buffer[] = [];
  let run: Buffer[] = [];
  // Text is gathered in an array and joined once: `+=` over a batch's thousands of pieces builds a
  // deep tree of string halves, which Buffer.from then has to walk to flatten.
  let texts: string[] = [];
  const endText = () => {
    if (texts.length > 0) run.push(Buffer.from(texts.length === 1 ? texts[0]! : texts.join('')));
    texts = [];
  };
  const endRun = () => {
    endText();
    if (run.length > 0) out.push(run.length === 1 ? run[0]! : Buffer.concat(run));
    run = [];
  };
  for (const p of parts) {
    if (typeof p === 'string') {
      if (p !== '') texts.push(p);
    } else if (p.length < WRITE_AS_IS) {
      endText();
      run.push(p);
    } else {
      endRun();
      out.push(p);
    }
  }
  endRun();
  return out;
}
