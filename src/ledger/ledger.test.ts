import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from './entry.js';
import { newRecord, type RequestRecord } from '../log/record.js';
import { LINE_LIMIT, readLedger } from './read.js';
import { entryLine, entryOf, ID_TEXT_LIMIT, parseEntry, shownText } from './entry.js';
import { printable, safeToPrint } from '../log/terminal-text.js';
import { createLedger, QUEUE_LIMIT } from './writer.js';

const NOV = Date.UTC(2026, 10, 26, 12);
const DEC = Date.UTC(2026, 11, 1, 0, 0, 1);

function finished(at: number, extra: Partial<RequestRecord> = {}): RequestRecord {
  const r = newRecord('req', at, 0, 'POST', '/v1/messages');
  Object.assign(r, {
    operation: 'create',
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

/** A finished request's line, as the writer makes it. */
const lineOf = (r: RequestRecord): string => entryLine(entryOf(r));

/** The line as the ledger first wrote it: JSON.stringify of the entry, which entryLine writes by hand. */
function stringified(r: RequestRecord): string {
  const u = r.usage;
  return `${JSON.stringify({
    v: 1,
    time: new Date(r.startedAt).toISOString(),
    group: r.keyGroup,
    key: r.keyName ?? r.keyId,
    keyId: r.keyId,
    model: r.servedBy ?? r.model,
    provider: r.provider,
    upstreamModel: r.upstreamModel,
    credential: r.credential,
    session: r.sessionId,
    agent: r.agentId,
    status: r.status,
    input: u?.inputTokens ?? 0,
    output: u?.outputTokens ?? 0,
    cacheRead: u?.cachedTokens ?? 0,
    cacheWrite: u?.cacheWriteTokens ?? 0,
    usd: r.cost?.usd ?? null,
    priced: r.cost?.source ?? 'unreported',
  })}\n`;
}

describe('a ledger line', () => {
  it.each<[string, Partial<RequestRecord>]>([
    ['every field', { credential: 'second', agentId: 'agent-7', servedBy: 'fallback' }],
    ['fields left out', { keyName: undefined, upstreamModel: undefined, sessionId: undefined, status: undefined, usage: undefined, cost: undefined }],
    ['no price', { cost: { usd: null, source: 'unpriced' } }],
    ['a tiny and a large cost', { cost: { usd: 1.5e-9, source: 'catalogue' } }],
    ['text JSON must escape', { sessionId: 'a"b\\c\n\u0000\u2028é😀', keyName: '"quoted"', model: 'gpt-\u001b[2J' }],
    ['a millisecond time', { startedAt: NOV + 7 } as Partial<RequestRecord>],
    ['a time before 1970', { startedAt: -1234 } as Partial<RequestRecord>],
  ])('is what JSON.stringify of the entry writes: %s', (_name, extra) => {
    const r = finished(NOV, extra);
    expect(lineOf(r)).toBe(stringified(r));
    expect(parseEntry(lineOf(r).trim())).toBeDefined();
  });

  it('names its own group, key, model and provider when they change from one line to the next (the names part is kept from the line before)', () => {
    const lines: Partial<RequestRecord>[] = [
      {},
      { keyName: 'bob' },
      { keyName: 'bob' },
      { model: 'other-model' },
      { provider: 'other-provider' },
      { upstreamModel: undefined },
      { keyGroup: 'other-group' },
      { keyId: 'ff00ff00', keyName: undefined },
      { servedBy: 'fallback' },
      {},
    ];
    for (const extra of lines) {
      const r = finished(NOV, extra);
      expect(lineOf(r)).toBe(stringified(r));
    }
  });

  it.each([
    ['a count that is not one', { inputTokens: Number.NaN, outputTokens: -3, cachedTokens: 1.5, cacheWriteTokens: Number.POSITIVE_INFINITY }],
    ['a count past 2^53', { inputTokens: 2 ** 60, outputTokens: 1 }],
  ])('writes %s as 0, so that the line still reads back', (_name, usage) => {
    const e = parseEntry(lineOf(finished(NOV, { usage })).trim());
    expect(e).toBeDefined();
    expect([e!.input, e!.output, e!.cacheRead, e!.cacheWrite].every((n) => Number.isSafeInteger(n) && n >= 0)).toBe(true);
  });
});

describe('ledger text read back and shown', () => {
  const HOSTILE = ['\u001b]0;pwned\u0007', 'a\r\nb', 'a\u007fb', '\u0085\u009b2J', 'user\u202egnp.exe', '\u2066x\u2069', 'a\ud800b', 'ab\udc00', '"q" \\ \\x1b', 'tab\there', 'é😀'];
  it.each(HOSTILE)('%j reads back exactly, shows escaped, and shows as the gateway logged it when the gateway wrote it', (text) => {
    const e = parseEntry(lineOf(finished(NOV, { sessionId: text, agentId: text, keyName: text, model: text })).trim());
    expect(e).toMatchObject({ session: text, agent: text, key: text, model: text });
    // Raw, as an edit could put it there: nothing that drives a terminal is shown.
    expect(safeToPrint(shownText(text))).toBe(true);
    expect(shownText(text)).not.toContain('\n');
    // Escaped on arrival, as the gateway keeps a caller's id: shown as the log line shows it, not escaped twice.
    expect(shownText(printable(text))).toBe(printable(text));
  });

  it('cuts an id past the longest the gateway writes, and other texts past theirs', () => {
    const long = 'x'.repeat(5000);
    const e = parseEntry(lineOf(finished(NOV, { sessionId: long, model: long })).trim());
    expect(e?.session).toHaveLength(ID_TEXT_LIMIT);
    expect(e!.model.length).toBeLessThan(ID_TEXT_LIMIT);
  });
});

describe('the usage ledger', () => {
  it('writes one line per finished model request, in the file of the month it started, and reads them back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-ledger-'));
    const ledger = createLedger(dir, () => {});
    ledger.observer.requestEnded(finished(NOV));
    ledger.observer.requestEnded(finished(DEC, { cost: { usd: null, source: 'unpriced' }, servedBy: 'fallback-model' }));
    // Not model requests: a models list, a count, one refused before it reached a provider.
    ledger.observer.requestEnded({ ...newRecord('x', NOV, 0, 'GET', '/v1/models'), keyGroup: 'dev', keyId: 'ab12cd34' });
    ledger.observer.requestEnded(finished(NOV, { path: '/v1/messages/count_tokens', operation: 'count_tokens' }));
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

  it('keeps every line, in order, of requests ending in many turns while writes are under way', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-ledger-'));
    const ledger = createLedger(dir, () => {});
    for (let i = 0; i < 300; i++) {
      for (let j = 0; j < (i % 4) + 1; j++) ledger.observer.requestEnded(finished(NOV, { sessionId: `s-${i}-${j}` }));
      if (i % 50 === 0) await ledger.flush();
      else await new Promise((r) => setImmediate(r));
    }
    await ledger.close();
    const sessions = (await all(dir)).entries.map((e) => e.session);
    const expected = Array.from({ length: 300 }, (_, i) => Array.from({ length: (i % 4) + 1 }, (_, j) => `s-${i}-${j}`)).flat();
    expect(sessions).toEqual(expected);
  });

  it('keeps a batch of hundreds of lines whole, text of several bytes per character included, across a month turn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-ledger-'));
    const ledger = createLedger(dir, () => {});
    // One turn: every line waits in the same batch.
    const ids = Array.from({ length: 400 }, (_, i) => `${i}-séance-日本語-${'€'.repeat(i % 40)}-😀`);
    for (const [i, id] of ids.entries()) ledger.observer.requestEnded(finished(i === 200 ? DEC : NOV, { sessionId: id }));
    await ledger.close();
    const sessions = (await all(dir)).entries.map((e) => e.session);
    expect(sessions).toEqual([...ids.slice(0, 200), ...ids.slice(201), ids[200]]);
    const november = readFileSync(join(dir, '2026-11.jsonl'));
    expect(november.length).toBeGreaterThan(64 * 1024);
    expect(november.toString('utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line).session)).toEqual([...ids.slice(0, 200), ...ids.slice(201)]);
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
    // Read back as written; shown, escaped.
    expect(entries[2]!.session).toBe('\u001b[2Jsess');
    expect(shownText(entries[2]!.session!)).toBe('\\x1b[2Jsess');
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

  it('drops what comes past its queue limit before a batch is written, says so once, and keeps the rest in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-ledger-'));
    const warnings: string[] = [];
    const ledger = createLedger(dir, (m) => warnings.push(m));
    // One turn: no batch is written until it ends, as with a disk that stopped taking writes.
    for (let i = 0; i < QUEUE_LIMIT + 5; i++) ledger.observer.requestEnded(finished(NOV, { sessionId: `s-${i}` }));
    expect(warnings).toEqual(['the usage ledger is not keeping up; lines are dropped']);
    await ledger.close();
    const sessions = (await all(dir)).entries.map((e) => e.session);
    expect(sessions).toHaveLength(QUEUE_LIMIT);
    expect(sessions[0]).toBe('s-0');
    expect(sessions.at(-1)).toBe(`s-${QUEUE_LIMIT - 1}`);
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
