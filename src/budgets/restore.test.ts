import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/parse.js';
import { ID_TEXT_LIMIT } from '../ledger/entry.js';
import { createLedger } from '../ledger/writer.js';
import { newRecord } from '../log/record.js';
import { printable } from '../log/terminal-text.js';
import { CLIENT_ID_LIMIT } from '../pipeline/events.js';
import type { BudgetDecision } from './budget-store.js';
import { createMemoryBudgetStore } from './memory-store.js';
import { allLines, sessionCounter } from './plan.js';
import { restoreSpend } from './restore.js';

const HOUR = 3_600_000;

describe("restoring sessions' spend from the ledger", () => {
  it('sums each session since its last day-long pause, and leaves out sessions idle for a day', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-restore-'));
    const now = Date.now();
    const line = (hoursAgo: number, session: string | undefined, usd: number) =>
      JSON.stringify({ v: 1, time: new Date(now - hoursAgo * HOUR).toISOString(), group: 'dev', key: 'k', keyId: 'ab12cd34', model: 'm', provider: 'p', session, input: 1, output: 1, cacheRead: 0, cacheWrite: 0, usd, priced: 'config' });
    const entries = [
      // Before a pause of more than a day: forgotten then, not counted now.
      line(72, 'paused', 0.75),
      line(2, 'paused', 0.5),
      // Its last request more than a day ago: its counter is gone.
      line(30, 'idle', 5),
      // Two requests within the day.
      line(20, 'going', 0.25),
      line(1, 'going', 0.5),
      // No session: nothing per session.
      line(1, undefined, 9),
    ];
    // The ledger's files are by month; a restore reads those its range can hold.
    const byMonth = new Map<string, string[]>();
    for (const e of entries) {
      const month = `${(JSON.parse(e) as { time: string }).time.slice(0, 7)}.jsonl`;
      byMonth.set(month, [...(byMonth.get(month) ?? []), e]);
    }
    for (const [file, lines] of byMonth) writeFileSync(join(dir, file), `${lines.join('\n')}\n`);

    const config = parseConfig({ server: { timeZone: 'UTC' }, providers: { p: { type: 'echo' } }, models: { m: { provider: 'p' } }, keyGroups: { dev: { keys: ['k-0123456789abcdef'], budget: { usd: 1, per: 'session' } } } }, { env: {} });
    const lines = allLines(config);
    const store = createMemoryBudgetStore();
    const read = await restoreSpend(dir, config, lines, store);
    expect(read?.skipped).toBe(0);
    const spentIn = (session: string): number => {
      const d = store.reserve([{ ...sessionCounter(lines[0]!, session, now), usd: 0 }], 0, now) as BudgetDecision;
      if (d.ok) throw new Error('a budget of 0 is always spent');
      return d.spent;
    };
    expect(spentIn('paused')).toBeCloseTo(0.5, 9);
    expect(spentIn('idle')).toBe(0);
    expect(spentIn('going')).toBeCloseTo(0.75, 9);
  });
});

/**
 * Session ids as a request's record may hold them: what the gateway keeps of a caller's header is
 * already escaped for a terminal (backslashes, `\t`, `\x85` as text), and the raw forms stand for any
 * other writer of the record. Each must come back as the very id its next request carries.
 */
const HOSTILE_IDS: [string, string][] = [
  ['C0 controls', '\u0001\u001b[2J\u0007s'],
  ['CR and LF', 'a\r\nb'],
  ['DEL', 'a\u007fb'],
  ['C1 controls (one-byte CSI)', 'a\u0085\u009b31mb'],
  ['a bidi override', 'user\u202egnp.exe'],
  ['a lone high surrogate', 'a\ud800b'],
  ['a lone low surrogate at the end', 'ab\udc00'],
  ['quotes', '"quoted" \'id\''],
  ['backslashes', 'a\\b\\\\c\\'],
  ['an escape written out', '\\x1b[2J'],
  ['a tab as the gateway keeps it', printable('a\tb')],
  ['C1 bytes of a header as the gateway keeps them', printable('a\u0085\u009bb')],
  ['a bidi override sent as UTF-8, as the gateway keeps it', printable(Buffer.from('a\u202eb', 'utf8').toString('latin1'))],
  ['the longest id the gateway keeps, escaped (128 characters escaped to six each)', printable('\u202e'.repeat(CLIENT_ID_LIMIT))],
  ['the longest header id escaped to four each', printable('\u0085'.repeat(CLIENT_ID_LIMIT))],
];

describe('session ids restored exactly as requests carry them', () => {
  it.each(HOSTILE_IDS)('%s', async (_name, id) => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-restore-ids-'));
    const now = Date.now();
    // Written by the ledger's own writer, from records as a finished request leaves them.
    const ledger = createLedger(dir, () => {});
    const finished = (session: string, usd: number, agoMs: number) => {
      const r = newRecord('r', now - agoMs, 0, 'POST', '/v1/messages');
      Object.assign(r, { operation: 'create', keyGroup: 'dev', keyId: 'ab12cd34', model: 'm', provider: 'p', sessionId: session, status: 200, usage: { inputTokens: 1, outputTokens: 1 }, cost: { usd, source: 'config' } });
      ledger.observer.requestEnded(r);
    };
    finished(id, 0.25, 2 * HOUR);
    finished(id, 0.5, HOUR);
    // Its neighbours, which must not be mistaken for it: the id escaped once more (where that changes it), and cut short.
    if (printable(id) !== id) finished(printable(id), 4, HOUR);
    finished(id.slice(0, -1), 8, HOUR);
    await ledger.close();

    const config = parseConfig({ server: { timeZone: 'UTC' }, providers: { p: { type: 'echo' } }, models: { m: { provider: 'p' } }, keyGroups: { dev: { keys: ['k-0123456789abcdef'], budget: { usd: 1, per: 'session' } } } }, { env: {} });
    const lines = allLines(config);
    const store = createMemoryBudgetStore();
    const read = await restoreSpend(dir, config, lines, store);
    expect(read).toMatchObject({ entries: printable(id) === id ? 3 : 4, skipped: 0 });
    const d = store.reserve([{ ...sessionCounter(lines[0]!, id, now), usd: 0 }], 0, now) as BudgetDecision;
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.spent).toBeCloseTo(0.75, 9);
  });

  it('keeps ids as long as the gateway makes them', () => {
    expect(ID_TEXT_LIMIT).toBeGreaterThanOrEqual(Math.max(...HOSTILE_IDS.map(([, id]) => id.length)));
    expect(ID_TEXT_LIMIT).toBe(6 * CLIENT_ID_LIMIT);
  });
});
