/**
 * Reading a `--log-file` recording, line by line, for `inspect` and `replay`: every line that
 * holds an exchange is handed on, every other one (not JSON, not an exchange, too long, cut
 * short by a crash) is skipped and kept as a line number and why, so one bad line costs that
 * line only and is still reported. The file is streamed, and a line past the length limit is
 * dropped as it streams, so neither a large file nor one huge line is ever held whole.
 */
import { createReadStream } from 'node:fs';
import type { ExchangeJson } from './exchange-json.js';
import { readExchangeLine } from './recorded-exchange.js';
import { DEFAULT_MAX_LINE_MIB } from './recording-limit.js';

/** Bad lines kept by number for the report; past this many only the count goes on. */
const KEPT_BAD_LINES = 1000;
/** Bad lines listed one per line in the report; the rest are counted. */
const LISTED_BAD_LINES = 10;

export interface BadLine {
  /** 1-based. */
  readonly line: number;
  /** Why it is not an exchange: text of ours, never the line's bytes. */
  readonly problem: string;
}

export interface RecordingRead {
  /** Exchanges handed on. */
  readonly exchanges: number;
  /** Lines skipped (blank lines aside). */
  readonly badCount: number;
  /** The first of them, in order. */
  readonly bad: readonly BadLine[];
}

const NEWLINE = 0x0a;

/** The file system's error that stopped a read, with the line it stopped in once some of the file had come. */
export class UnreadableRecording extends Error {
  override readonly name = 'UnreadableRecording';
  constructor(
    cause: NodeJS.ErrnoException,
    readonly line: number | undefined,
  ) {
    super(cause.message, { cause });
  }

  get code(): string | undefined {
    return (this.cause as NodeJS.ErrnoException).code;
  }
}

/**
 * Reads `file`, calling `add` for each exchange with its line number and its length in bytes.
 * Rejects with an `UnreadableRecording` when the file system fails the read.
 */
export async function readRecordingFile(
  file: string,
  add: (exchange: ExchangeJson, line: number, bytes: number) => void,
  maxLineBytes = DEFAULT_MAX_LINE_MIB * 1024 * 1024,
): Promise<RecordingRead> {
  let exchanges = 0;
  let badCount = 0;
  const bad: BadLine[] = [];
  const skip = (line: number, problem: string) => {
    badCount++;
    if (bad.length < KEPT_BAD_LINES) bad.push({ line, problem });
  };

  let line = 1;
  let parts: Buffer[] = [];
  let bytes = 0;
  let tooLong = false;
  const finish = () => {
    if (tooLong) skip(line, `longer than ${maxLineBytes / (1024 * 1024)} MiB (see --max-line)`);
    else if (bytes > 0) {
      const text = Buffer.concat(parts, bytes).toString('utf8');
      if (text.trim() !== '') {
        const read = readExchangeLine(text);
        if ('exchange' in read) {
          exchanges++;
          add(read.exchange, line, bytes);
        } else skip(line, read.problem);
      }
    }
    line++;
    parts = [];
    bytes = 0;
    tooLong = false;
  };
  const take = (piece: Buffer) => {
    if (tooLong || piece.length === 0) return;
    if (bytes + piece.length > maxLineBytes) {
      tooLong = true;
      parts = [];
      bytes = 0;
      return;
    }
    parts.push(piece);
    bytes += piece.length;
  };

  const stream = createReadStream(file);
  let begun = false;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      begun = true;
      let from = 0;
      for (let nl = chunk.indexOf(NEWLINE, from); nl !== -1; nl = chunk.indexOf(NEWLINE, from)) {
        take(chunk.subarray(from, nl));
        finish();
        from = nl + 1;
      }
      // A copy: the stream may reuse its buffer's memory for the next chunk.
      if (from < chunk.length) take(Buffer.from(chunk.subarray(from)));
    }
  } catch (err) {
    // What `add` throws is the caller's own and goes on as it is.
    if (err !== stream.errored) throw err;
    throw new UnreadableRecording(err as NodeJS.ErrnoException, begun ? line : undefined);
  }
  // The last line, when the file does not end with a newline (a recording cut by a crash).
  if (tooLong || bytes > 0) finish();
  return { exchanges, badCount, bad };
}

/**
 * What every command says of a recording it cannot read: `file` as the user gave it, the line the
 * read stopped in (when some of the file had come), and why, in words for the usual causes.
 */
export function unreadableRecording(file: string, err: unknown): string {
  const { code, message } = err as { code?: unknown; message?: unknown };
  const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : String(message ?? err);
  const at = err instanceof UnreadableRecording && err.line !== undefined ? ` at line ${err.line}` : '';
  return `Cannot read the recording ${file}${at}: ${why}.`;
}

/**
 * The report of skipped lines, for people: a heading line, then one line per bad line (the first
 * ten), then how many more. Empty when there were none. `file` is the name as the user gave it.
 */
export function badLinesReport(file: string, read: RecordingRead): string[] {
  if (read.badCount === 0) return [];
  const n = read.badCount;
  const out = [`${file}: ${n} line${n === 1 ? '' : 's'} skipped, not ${n === 1 ? 'an exchange' : 'exchanges'}:`];
  for (const b of read.bad.slice(0, LISTED_BAD_LINES)) out.push(`  line ${b.line}: ${b.problem}`);
  if (n > LISTED_BAD_LINES) out.push(`  … and ${n - LISTED_BAD_LINES} more`);
  return out;
}
