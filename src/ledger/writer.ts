/**
 * The usage ledger's writer: an observer of finished requests that appends their lines to
 * `<dir>/YYYY-MM.jsonl` (the month, in UTC, the request started). Off the request path: the line is
 * made when the response has closed, queued, and written by one write at a time, in order; what
 * queues while a write is under way goes in the next, at once. Nothing waits for a batch to fill,
 * so a process killed outright loses only the lines of the write under way and those queued behind
 * it; a clean stop (`close`) writes everything first.
 */
import { mkdirSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { printable } from '../log/terminal-text.js';
import type { RequestObserver } from '../pipeline/context.js';
import { entryLine, isLedgered } from './entry.js';

export interface UsageLedger {
  readonly observer: RequestObserver;
  /** Resolves once every line queued so far is written (or its write failed). */
  flush(): Promise<void>;
  /** Writes what is queued, then closes the file; lines of requests ending after this are not kept. */
  close(): Promise<void>;
}

/** The file of a month: `2026-11.jsonl`. */
export const monthFile = (epochMs: number): string => `${new Date(epochMs).toISOString().slice(0, 7)}.jsonl`;

/** Most bytes queued; past it (a disk that stopped taking writes) new lines are dropped and counted. */
const QUEUE_LIMIT = 16 * 1024 * 1024;

/**
 * A ledger in `dir` (made, private to the user, if missing). `warn` hears of a failed write once
 * per run of failures, and of the lines dropped.
 */
export function createLedger(dir: string, warn: (message: string) => void): UsageLedger {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let queue: { file: string; text: string }[] = [];
  let queuedBytes = 0;
  let dropped = 0;
  let failing = false;
  let closed = false;
  let handle: { file: string; fh: FileHandle } | undefined;
  let writing: Promise<void> | undefined;

  const fileFor = async (file: string): Promise<FileHandle> => {
    if (handle?.file === file) return handle.fh;
    await handle?.fh.close().catch(() => {});
    handle = undefined;
    const fh = await open(join(dir, file), 'a+', 0o600);
    handle = { file, fh };
    // A line cut short by a crash is ended, so that the next line is not lost with it.
    const { size } = await fh.stat();
    if (size > 0) {
      const last = Buffer.alloc(1);
      await fh.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) await fh.write('\n');
    }
    return fh;
  };

  const writeQueued = async (): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      queuedBytes = 0;
      // One write per month file in the batch, in order (two files only around the turn of a month).
      let i = 0;
      while (i < batch.length) {
        const file = batch[i]!.file;
        let text = '';
        for (; i < batch.length && batch[i]!.file === file; i++) text += batch[i]!.text;
        try {
          await (await fileFor(file)).write(text);
          if (failing) warn('the usage ledger is written again');
          failing = false;
        } catch (err) {
          if (!failing) warn(printable(`cannot write the usage ledger in ${dir}: ${err instanceof Error ? err.message : String(err)}; its lines are lost until it can`));
          failing = true;
          await handle?.fh.close().catch(() => {});
          handle = undefined;
        }
      }
    }
    writing = undefined;
  };

  const observer: RequestObserver = {
    requestEnded(record) {
      if (closed || !isLedgered(record)) return;
      const text = entryLine(record);
      if (queuedBytes + text.length > QUEUE_LIMIT) {
        if (dropped++ === 0) warn('the usage ledger is not keeping up; lines are dropped');
        return;
      }
      queue.push({ file: monthFile(record.startedAt), text });
      queuedBytes += text.length;
      writing ??= writeQueued();
    },
  };

  const flush = async (): Promise<void> => {
    while (writing) await writing;
  };

  return {
    observer,
    flush,
    async close() {
      closed = true;
      await flush();
      await handle?.fh.close().catch(() => {});
      handle = undefined;
    },
  };
}
