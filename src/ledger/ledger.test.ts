import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from './entry.js';
import { newRecord, type RequestRecord } from '../log/record.js';
import { LINE_LIMIT, readLedger } from './read.js';
import { createLedger } from './writer.js';

const NOV = Date.UTC(2026, 10, 26, 12);
const DEC = Date.UTC(2026, 11, 1, 0, 0, 1);

function finished(at: number, extra: Partial<RequestRecord> = {}): RequestRecord {
  const r = newRecord('req', at, 0, 'POST', '/v1/messages');
  Object.assign(r, {
    keyGroup: 'dev',
    keyId: 'ab12cd34',
    keyName: 'alice',
    model: 'claude-test',
    provider: 'anthropic',
    upstreamModel: 'claude-upstream',
    sessionId: 'sess-1',
    status: 200,
    usage: { inputTokens: 100, outputTokens: 10, cachedTokens: 60, cacheWriteTokens: 20 },
    cost: { usd: 0.0012, source: 'config' },
    ...extra,
  });
  return r;
}

const all = async (dir: string, from = 0, to = Number.POSITIVE_INFINITY) => {
  const entries: LedgerEntry[] = [];
  const read = await readLedger(dir, { from, to }, (e) => entries.push(e));
  return { entries, read };
};

describe('the usage ledger', () => {
  it('writes one line per finished model request, in the file of the month it started, and reads them back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-ledger-'));
    const ledger = createLedger(dir, () => {});
    ledger.observer.requestEnded(finished(NOV));
    ledger.observer.requestEnded(finished(DEC, { cost: { usd: null, source: 'unpriced' }, servedBy: 'fallback-model' }));
    // Not model requests: a models list, a count, one refused before it reached a provider.
    ledger.observer.requestEnded({ ...newRecord('x', NOV, 0, 'GET', '/v1/models'), keyGroup: 'dev', keyId: 'ab12cd34' });
    ledger.observer.requestEnded(finished(NOV, { path: '/v1/messages/count_tokens' }));
    ledger.observer.requestEnded(finished(NOV, { provider: undefined }));
    await ledger.close();
    expect(readdirSync(dir).sort()).toEqual(['2026-11.jsonl', '2026-12.jsonl']);
    const text = readFileSync(join(dir, '2026-11.jsonl'), 'utf8');
    expect(text).not.toContain('messages');
    const { entries, read } = await all(dir);
    expect(read).toEqual({ entries: 2, skipped: 0, files: 2 });
    expect(entries[0]).toMatchObject({ time: NOV, group: 'dev', key: 'alice', keyId: 'ab12cd34', model: 'claude-test', session: 'sess-1', input: 100, output: 10, cacheRead: 60, cacheWrite: 20, usd: 0.0012, priced: 'config' });
    expect(entries[1]).toMatchObject({ model: 'fallback-model', usd: null, priced: 'unpriced' });
    // Only the months a range can hold are read.
    expect((await all(dir, DEC, DEC + 1)).read.files).toBe(1);
  });

  it('reads a hostile file: bad lines and lines past the cap are skipped and counted, the rest kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-ledger-'));
    const ledger = createLedger(dir, () => {});
    ledger.observer.requestEnded(finished(NOV));
    await ledger.flush();
    const file = join(dir, '2026-11.jsonl');
    const good = readFileSync(file, 'utf8');
    const bad = [
      'not json',
      '[]',
      JSON.stringify({ v: 1, time: 'yesterday' }),
      good.replace('"input":100', '"input":-1').trim(),
      good.replace('"usd":0.0012', '"usd":"free"').trim(),
      good.replace('"v":1', '"v":99').trim(),
      `{"pad":"${'x'.repeat(LINE_LIMIT * 3)}"}`,
    ];
    // Then a good line, and one whose session would clear a terminal.
    appendFileSync(file, `${bad.join('\n')}\n${good}${good.replace('"sess-1"', '"\\u001b[2Jsess"')}`);
    const { entries, read } = await all(dir);
    expect(read.skipped).toBe(bad.length);
    expect(entries).toHaveLength(3);
    expect(entries[2]!.session).not.toContain('\u001b');
    await ledger.close();
  });

  it('ends a line a crash cut short before appending, so the next line is not lost with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-ledger-'));
    const first = createLedger(dir, () => {});
    first.observer.requestEnded(finished(NOV));
    await first.close();
    const file = join(dir, '2026-11.jsonl');
    writeFileSync(file, `${readFileSync(file, 'utf8')}{"v":1,"time":"2026-11-26T12:00:0`);
    const second = createLedger(dir, () => {});
    second.observer.requestEnded(finished(NOV));
    await second.close();
    const { entries, read } = await all(dir);
    expect(entries).toHaveLength(2);
    expect(read.skipped).toBe(1);
  });

  it('tells once when it cannot write, and keeps serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-ledger-'));
    const warnings: string[] = [];
    const ledger = createLedger(join(dir, 'usage'), (m) => warnings.push(m));
    // The month's file is a folder: every write fails.
    mkdirSync(join(dir, 'usage', '2026-11.jsonl'));
    for (let i = 0; i < 3; i++) {
      ledger.observer.requestEnded(finished(NOV));
      await ledger.flush();
    }
    await ledger.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('cannot write the usage ledger');
  });
});
