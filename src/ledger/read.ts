/**
 * Reading the usage ledger back, for `usage` and for the budgets' spend at start. Its files are
 * read as hostile: a line longer than the cap is skipped without being held, a line that is not an
 * entry is skipped, and both are counted; each byte is looked at a bounded number of times.
 */
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type LedgerEntry, parseEntry } from './entry.js';

/** Longest line read; real ones are a few hundred bytes. */
export const LINE_LIMIT = 16 * 1024;

export interface LedgerRead {
  /** Entries read within the time range. */
  entries: number;
  /** Lines that were not entries (or were too long). */
  skipped: number;
  /** Files read. */
  files: number;
}

const MONTH_FILE = /^(\d{4})-(\d{2})\.jsonl$/;

/**
 * Calls `onEntry` for each entry of `dir` that started within [from, to), reading only the month
 * files that can hold one. A missing folder is an empty ledger.
 */
export async function readLedger(dir: string, range: { from: number; to: number }, onEntry: (e: LedgerEntry) => void): Promise<LedgerRead> {
  const read: LedgerRead = { entries: 0, skipped: 0, files: 0 };
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return read;
    throw err;
  }
  const files = names
    .filter((name) => {
      const m = MONTH_FILE.exec(name);
      if (!m) return false;
      const start = Date.UTC(Number(m[1]), Number(m[2]) - 1, 1);
      const end = Date.UTC(Number(m[1]), Number(m[2]), 1);
      return start < range.to && end > range.from;
    })
    .sort();
  for (const name of files) {
    read.files++;
    await readLines(join(dir, name), (line) => {
      const entry = parseEntry(line);
      if (!entry) {
        read.skipped++;
        return;
      }
      if (entry.time >= range.from && entry.time < range.to) {
        read.entries++;
        onEntry(entry);
      }
    }, () => read.skipped++);
  }
  return read;
}

/** Each line of a file (without its newline, a final one without one too); `tooLong` for each past the cap, which is not held. */
async function readLines(file: string, onLine: (line: string) => void, tooLong: () => void): Promise<void> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let skipping = false;
  const end = (tail: Buffer) => {
    if (skipping) tooLong();
    else {
      const line = held.length === 0 ? tail : Buffer.concat([...held, tail]);
      if (line.length > 0) onLine(line.toString('utf8'));
    }
    held = [];
    heldBytes = 0;
    skipping = false;
  };
  for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 }) as AsyncIterable<Buffer>) {
    let at = 0;
    for (let nl = chunk.indexOf(0x0a, at); nl !== -1; nl = chunk.indexOf(0x0a, at)) {
      const piece = chunk.subarray(at, nl);
      if (!skipping && heldBytes + piece.length > LINE_LIMIT) skipping = true;
      end(skipping ? Buffer.alloc(0) : piece);
      at = nl + 1;
    }
    if (at < chunk.length && !skipping) {
      const rest = chunk.subarray(at);
      if (heldBytes + rest.length > LINE_LIMIT) {
        skipping = true;
        held = [];
        heldBytes = 0;
      } else {
        held.push(rest);
        heldBytes += rest.length;
      }
    }
  }
  if (skipping || heldBytes > 0) end(Buffer.alloc(0));
}
