/**
 * The ledger's tail read back as the inspector's rows from before a restart: newest month files
 * first, within a byte budget, hostile lines skipped and counted.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { printable, safeToPrint } from '../log/terminal-text.js';
import { ledgerFacts, readLedgerTail } from './from-ledger.js';
import { createStore, summaryOf } from './store.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A ledger folder with these month files. */
function ledger(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mgw-ledger-tail-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** A ledger line as the writer makes it, for request `n` of the given month. */
const line = (month: string, n: number, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({
    v: 1,
    time: `${month}-02T10:00:${String(n % 60).padStart(2, '0')}.000Z`,
    group: 'dev',
    key: 'alice',
    keyId: 'abcd1234',
    model: `model-${n}`,
    provider: 'openai',
    upstreamModel: 'gpt-x',
    status: 200,
    input: 10 * n,
    output: n,
    cacheRead: 0,
    cacheWrite: 0,
    usd: 0.001,
    priced: 'catalogue',
    ...extra,
  })}\n`;
const lines = (month: string, from: number, to: number) => Array.from({ length: to - from }, (_, i) => line(month, from + i)).join('');
const models = (entries: { model: string }[]) => entries.map((e) => e.model);

describe('reading the ledger tail', () => {
  it.each([
    ['a missing folder', undefined, 5, [], 0],
    ['fewer entries than asked', { '2026-11.jsonl': lines('2026-11', 0, 3) }, 5, ['model-0', 'model-1', 'model-2'], 0],
    ['the last of many, oldest first', { '2026-11.jsonl': lines('2026-11', 0, 50) }, 3, ['model-47', 'model-48', 'model-49'], 0],
    [
      'the newest month first, then the one before for what it lacks',
      { '2026-10.jsonl': lines('2026-10', 100, 110), '2026-11.jsonl': lines('2026-11', 0, 2), 'notes.txt': 'not a ledger\n' },
      4,
      ['model-108', 'model-109', 'model-0', 'model-1'],
      0,
    ],
    [
      'hostile lines skipped and counted: not JSON, another shape, a wrong version, a line past the cap, a line cut short',
      {
        '2026-11.jsonl':
          line('2026-11', 1) +
          'not json\n' +
          '{"v":1}\n' +
          line('2026-11', 2, { v: 2 }) +
          `${'{"v":1,"pad":"'}${'x'.repeat(20_000)}"}\n` +
          line('2026-11', 3) +
          line('2026-11', 4).slice(0, 40),
      },
      30,
      ['model-1', 'model-3'],
      5,
    ],
  ])('%s', async (_name, files, count, expected, skipped) => {
    const dir = files === undefined ? join(tmpdir(), 'mgw-no-such-ledger-folder') : ledger(files);
    const tail = await readLedgerTail(dir, count);
    expect(models(tail.entries)).toEqual(expected);
    expect(tail.skipped).toBe(skipped);
  });

  it('skips a month file that is not a file (a FIFO, a folder) without waiting on it', async () => {
    const dir = ledger({ '2026-10.jsonl': lines('2026-10', 0, 2) });
    execFileSync('mkfifo', [join(dir, '2026-11.jsonl')]);
    mkdirSync(join(dir, '2026-12.jsonl'));
    const tail = await readLedgerTail(dir, 5);
    expect(models(tail.entries)).toEqual(['model-0', 'model-1']);
  });

  it('reads no more than its budget, leaving out a line the budget cuts into', async () => {
    const dir = ledger({ '2026-10.jsonl': lines('2026-10', 0, 100), '2026-11.jsonl': lines('2026-11', 100, 200) });
    const size = line('2026-11', 150).length;
    const tail = await readLedgerTail(dir, 1000, size * 3 + 10);
    expect(models(tail.entries)).toEqual(['model-197', 'model-198', 'model-199']);
    expect(tail.skipped).toBe(0);
  });

  it('turns entries into rows without bodies, marked as from before the restart, in the order read', async () => {
    const dir = ledger({ '2026-11.jsonl': line('2026-11', 7, { usd: null, priced: 'unpriced', session: 's-1' }) + line('2026-11', 8) });
    const { entries } = await readLedgerTail(dir, 10);
    const store = createStore({ capacity: 5 });
    for (const [i, e] of entries.entries()) store.addRestored(ledgerFacts(e, i));
    const rows = store.entries().map(summaryOf);
    expect(rows.map((r) => r.model)).toEqual(['model-8', 'model-7']);
    expect(rows[1]).toMatchObject({ restored: true, bodiesDropped: true, keyGroup: 'dev', keyName: 'alice', status: 200, costUsd: null, sessionId: 's-1', usage: { inputTokens: 70, outputTokens: 7 } });
    expect(rows[0]).toMatchObject({ costUsd: 0.001 });
  });

  it.each([
    ['a session id as the gateway keeps it (escaped when its request arrived): as it is, so it groups with the rows of this run', printable('a\tb\\c\u0085'), printable('a\tb\\c\u0085')],
    ['a session id an edit put there raw: escaped', '\u001b]0;pwned\u0007\u202es', '\\x1b]0;pwned\\x07\\u202es'],
    ['line breaks and a lone surrogate', 'a\r\nb\ud800', 'a\\r\\nb\\ud800'],
  ])('shows ledger text safely: %s', async (_name, session, shown) => {
    const dir = ledger({ '2026-11.jsonl': line('2026-11', 1, { session, agent: session, key: session }) });
    const { entries } = await readLedgerTail(dir, 10);
    const facts = ledgerFacts(entries[0]!, 0);
    expect(facts).toMatchObject({ sessionId: shown, agentId: shown, keyName: shown });
    expect(safeToPrint(JSON.stringify(facts))).toBe(true);
  });
});
