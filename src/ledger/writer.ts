/**
 * The usage ledger's writer: an observer of finished requests that appends their lines to
 * `<dir>/YYYY-MM.jsonl` (the month, in UTC, the request started). Off the request path: when the
 * response has closed, the request's entry is taken from its record and queued; the queue is made
 * into lines and goes to the file in one write at the end of that turn of the event loop, or, under
 * load, once BATCH_GAP_MS have passed since the last write started, so that those milliseconds'
 * requests share a write. Nothing waits for a batch to fill, so a process killed outright loses only
 * the lines of the write under way and of those milliseconds; a clean stop (`close`) writes
 * everything first.
 *
 * Cheap, since every model request pays it. A request's end only takes a flat entry from its record
 * (entry.ts); the lines are made a batch at a time, in one loop, whose code and data stay in the
 * CPU's caches, where the same work done once amid all else a request's end runs cost several times
 * as much. A write is one call into the thread pool with a callback (no promise); each wakes a pool
 * thread and then the event loop, which on a virtual machine costs more than the write itself:
 * hence writes a batch gap apart rather than one per turn (docs/performance.md, "The usage ledger").
 */
import { type NoParamCallback, close as closeFd, closeSync, fstatSync, mkdirSync, openSync, readSync, write, writeSync } from 'node:fs';
import { join } from 'node:path';
import { printable } from '../log/terminal-text.js';
import type { RequestObserver } from '../pipeline/context.js';
import { entryLine, entryOf, isLedgered, type LedgerEntry } from './entry.js';

export interface UsageLedger {
  readonly observer: RequestObserver;
  /** Resolves once every line queued so far is written (or its write failed). */
  flush(): Promise<void>;
  /** Writes what is queued, then closes the file; lines of requests ending after this are not kept. */
  close(): Promise<void>;
}

/** The file of a month: `2026-11.jsonl`. */
export const monthFile = (epochMs: number): string => `${new Date(epochMs).toISOString().slice(0, 7)}.jsonl`;

/**
 * Least time between the starts of two batches: under load, the lines of these milliseconds' requests
 * go in one write rather than one write each; a request ending alone is written at the end of its turn.
 * As long as the log file's batches (log/logger.ts).
 */
const BATCH_GAP_MS = 50;

/** Most entries queued (about 16 MiB of lines); past it (a disk that stopped taking writes) new ones are dropped and counted. */
export const QUEUE_LIMIT = 50_000;

/** A batch's lines for one month file. */
interface Lines {
  readonly file: string;
  text: string;
}

/**
 * A ledger in `dir` (made, private to the user, if missing). `warn` hears of a failed write once
 * per run of failures, and of the lines dropped.
 */
export function createLedger(dir: string, warn: (message: string) => void): UsageLedger {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // The entries of requests ended since the last batch started, in order.
  let queue: LedgerEntry[] = [];
  let dropped = 0;
  let failing = false;
  let closed = false;
  let waiting: (() => void)[] = [];
  let handle: { file: string; fd: number } | undefined;
  // The month a request started in is worked out again only when one falls outside the last one's.
  let month = { start: 0, end: 0, file: '' };

  const fileOf = (t: number): string => {
    if (t < month.start || t >= month.end) {
      const d = new Date(t);
      month = { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1), file: monthFile(t) };
    }
    return month.file;
  };

  const closeHandle = () => {
    if (handle === undefined) return;
    const { fd } = handle;
    handle = undefined;
    closeFd(fd, () => {});
  };

  /** The month file's descriptor, opened (once a month) at the end of a turn, off any request. */
  const fdFor = (file: string): number => {
    if (handle?.file === file) return handle.fd;
    closeHandle();
    const fd = openSync(join(dir, file), 'a+', 0o600);
    try {
      // A line cut short by a crash is ended, so that the next line is not lost with it.
      const { size } = fstatSync(fd);
      if (size > 0) {
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, size - 1);
        if (last[0] !== 0x0a) writeSync(fd, '\n');
      }
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    handle = { file, fd };
    return fd;
  };

  const failed = (err: unknown) => {
    if (!failing) warn(printable(`cannot write the usage ledger in ${dir}: ${err instanceof Error ? err.message : String(err)}; its lines are lost until it can`));
    failing = true;
    closeHandle();
  };
  const wrote = () => {
    if (failing) warn('the usage ledger is written again');
    failing = false;
  };

  /** The entries' lines, one text per month file, in order (more than one only around the turn of a month). */
  const linesOf = (entries: readonly LedgerEntry[]): Lines[] => {
    const out: Lines[] = [];
    let last: Lines | undefined;
    for (const e of entries) {
      const file = fileOf(e.time);
      if (last === undefined || last.file !== file) {
        last = { file, text: '' };
        out.push(last);
      }
      last.text += entryLine(e);
    }
    return out;
  };

  /** A batch is due (at the end of this turn, or once the gap since the last is over), or being written. */
  let busy = false;
  let timer: NodeJS.Timeout | undefined;
  /** performance.now() when the last batch started. */
  let lastBatch = Number.NEGATIVE_INFINITY;

  /** Writes what is queued now, file by file, then the next batch if more came meanwhile. */
  const writeBatch = (): void => {
    timer = undefined;
    lastBatch = performance.now();
    const batch = linesOf(queue);
    queue = [];
    let i = 0;
    const next = (): void => {
      const queued = batch[i++];
      if (queued === undefined) {
        busy = false;
        if (queue.length > 0) schedule();
        else {
          const done = waiting;
          waiting = [];
          for (const resolve of done) resolve();
        }
        return;
      }
      let fd: number;
      try {
        fd = fdFor(queued.file);
      } catch (err) {
        failed(err);
        next();
        return;
      }
      writeAll(fd, Buffer.from(queued.text), (err) => {
        if (err) failed(err);
        else wrote();
        next();
      });
    };
    next();
  };

  /**
   * The next batch: at the end of this turn, or, when the last batch started less than BATCH_GAP_MS
   * ago (requests ending one after another under load), once that gap is over.
   */
  const schedule = (): void => {
    busy = true;
    const wait = lastBatch + BATCH_GAP_MS - performance.now();
    if (wait > 0 && !closed) timer = setTimeout(writeBatch, wait);
    else setImmediate(writeBatch);
  };

  const observer: RequestObserver = {
    requestEnded(record) {
      if (closed || !isLedgered(record)) return;
      if (queue.length >= QUEUE_LIMIT) {
        if (dropped++ === 0) warn('the usage ledger is not keeping up; lines are dropped');
        return;
      }
      queue.push(entryOf(record));
      if (!busy) schedule();
    },
  };

  const flush = (): Promise<void> => {
    if (!busy) return Promise.resolve();
    // Waited for by a clean stop, or a test: the gap is not waited out.
    if (timer !== undefined) {
      clearTimeout(timer);
      setImmediate(writeBatch);
      timer = undefined;
    }
    return new Promise<void>((resolve) => waiting.push(resolve));
  };

  return {
    observer,
    flush,
    async close() {
      closed = true;
      await flush();
      if (handle !== undefined) {
        const { fd } = handle;
        handle = undefined;
        try {
          closeSync(fd);
        } catch {
          // Closed already, or the disk went away: nothing is left to write.
        }
      }
    },
  };
}

/** Writes all of `bytes` at the file's end (it is opened to append), however many writes that takes. */
function writeAll(fd: number, bytes: Buffer, done: NoParamCallback): void {
  write(fd, bytes, 0, bytes.length, null, (err, written) => {
    if (err) done(err);
    else if (written <= 0) done(new Error('the file took none of the bytes written to it'));
    else if (written < bytes.length) writeAll(fd, bytes.subarray(written), done);
    else done(null);
  });
}
