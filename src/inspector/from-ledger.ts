/**
 * History across restarts: at start, the facts of the last ledgered requests (the usage ledger,
 * `<dataDir>/usage/YYYY-MM.jsonl`) become the inspector's oldest rows, without bodies and marked as
 * from before the restart.
 *
 * Only the tail of the newest month files is read, newest file first, with a byte budget for all of
 * them: a ledger of years costs what its last few hundred lines cost. The files are read as hostile:
 * a line that is not an entry, or longer than the ledger's own cap, is skipped and counted, and a
 * line cut by the budget's edge is not read at all.
 */
import { constants } from 'node:fs';
import { type FileHandle, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type LedgerEntry, parseEntry, shownText } from '../ledger/entry.js';
import { LINE_LIMIT } from '../ledger/read.js';
import { EXCHANGE_JSON_VERSION, type ExchangeJson } from '../log/exchange-json.js';

const MONTH_FILE = /^\d{4}-\d{2}\.jsonl$/;
/** A ledger line is a few hundred bytes; this much per wanted entry leaves room for skipped lines. */
const BYTES_PER_ENTRY = 2048;
/** The most read however many entries are wanted. */
const MAX_TAIL_BYTES = 16 * 1024 * 1024;

export interface LedgerTail {
  /** Oldest first. */
  readonly entries: LedgerEntry[];
  /** Lines that were not entries, or were too long. */
  readonly skipped: number;
}

/** The last `count` entries of the ledger in `dir` (a missing folder is an empty ledger). */
export async function readLedgerTail(dir: string, count: number, budget = Math.min(MAX_TAIL_BYTES, count * BYTES_PER_ENTRY)): Promise<LedgerTail> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => MONTH_FILE.test(n)).sort();
  } catch {
    return { entries: [], skipped: 0 };
  }
  const newestFirst: LedgerEntry[] = [];
  let skipped = 0;
  let left = budget;
  for (let i = names.length - 1; i >= 0 && newestFirst.length < count && left > 0; i--) {
    const tail = await readTail(join(dir, names[i]!), left);
    left -= tail.read;
    // Lines newest first: the file's last line is its newest entry.
    for (let k = tail.lines.length - 1; k >= 0 && newestFirst.length < count; k--) {
      const line = tail.lines[k]!;
      const entry = line.length > LINE_LIMIT ? undefined : parseEntry(line);
      if (entry) newestFirst.push(entry);
      else skipped++;
    }
  }
  return { entries: newestFirst.reverse(), skipped };
}

/**
 * The whole lines within the last `max` bytes of `file`: the first is dropped when it may be the end
 * of a line that began before them. Empty lines are left out.
 */
async function readTail(file: string, max: number): Promise<{ lines: string[]; read: number }> {
  let handle: FileHandle;
  try {
    // Not blocking on open: a FIFO put in the ledger's place would otherwise hold the start up for good.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return { lines: [], read: 0 };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { lines: [], read: 0 };
    const length = Math.min(stat.size, max);
    const from = stat.size - length;
    const buffer = Buffer.alloc(length);
    let got = 0;
    while (got < length) {
      const { bytesRead } = await handle.read(buffer, got, length - got, from + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    const lines = buffer.subarray(0, got).toString('utf8').split('\n');
    if (from > 0) lines.shift();
    return { lines: lines.filter((l) => l.length > 0), read: got };
  } finally {
    await handle.close();
  }
}

/** The prefix of a restored row's id: a request of this run never has one. */
const RESTORED_ID_PREFIX = 'before-restart-';

/**
 * A ledger entry as the facts of an exchange (no bodies). Its texts as shown (`shownText`): what the
 * gateway wrote is unchanged, so a session's rows from before the restart group with its rows of
 * this run; what an edit put there raw is escaped.
 */
export function ledgerFacts(e: LedgerEntry, n: number): ExchangeJson {
  const priced = e.usd === null ? { usd: null, source: 'unpriced' as const } : e.priced === 'config' || e.priced === 'catalogue' ? { usd: e.usd, source: e.priced } : undefined;
  return {
    v: EXCHANGE_JSON_VERSION,
    id: `${RESTORED_ID_PREFIX}${n}`,
    time: new Date(e.time).toISOString(),
    method: 'POST',
    path: '',
    keyGroup: shownText(e.group),
    keyId: shownText(e.keyId),
    keyName: shownText(e.key),
    model: shownText(e.model),
    provider: shownText(e.provider),
    ...(e.upstreamModel !== undefined ? { upstreamModel: shownText(e.upstreamModel) } : {}),
    ...(e.session !== undefined ? { sessionId: shownText(e.session) } : {}),
    ...(e.agent !== undefined ? { agentId: shownText(e.agent) } : {}),
    ...(e.status !== undefined ? { status: e.status } : {}),
    usage: { inputTokens: e.input, outputTokens: e.output, cachedTokens: e.cacheRead, cacheWriteTokens: e.cacheWrite },
    ...(priced !== undefined && e.priced !== 'unreported' ? { cost: priced } : {}),
  };
}
