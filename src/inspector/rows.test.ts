import { describe, expect, it } from 'vitest';
import { newRecord, type RequestRecord } from '../log/record.js';
import { newExchange } from '../log/exchange.js';
import { createRows, RARE_FIELDS, TEXT_FIELDS } from './rows.js';

let n = 0;
/** An ended request as the pipeline leaves it: every field present, undefined until known. */
function ended(fields: Partial<RequestRecord> = {}): RequestRecord {
  n++;
  return { ...newRecord(`req_${n}`, 1_700_000_000_000 + n, 1234.5 + n, 'POST', '/v1/messages'), status: 200, durationMs: 12.25, ...fields };
}

/** What reading a row gives back: the record without what ended with its request. */
const facts = (r: RequestRecord): RequestRecord => ({ ...r, exchange: undefined, trace: undefined });

describe("history's rows", () => {
  it.each<[string, Partial<RequestRecord>]>([
    ['the fewest facts (a request refused before routing)', { status: 401, durationMs: 0.5, attemptCount: 0 }],
    [
      'every fact a row holds',
      {
        transport: 'websocket',
        protocol: 'responses',
        operation: 'create',
        upstreamProtocol: 'messages',
        userAgent: 'codex_cli_rs/0.50.0',
        sessionId: 'sess-1',
        agentId: 'agent-2',
        parentAgentId: 'agent-1',
        keyGroup: 'team',
        keyId: 'k_0123456789',
        keyName: 'ci',
        model: 'claude',
        provider: 'anthropic',
        credential: 'second',
        upstreamModel: 'claude-sonnet-4-5',
        stream: true,
        ttfbMs: 3.75,
        usage: { inputTokens: 1200, outputTokens: 30, cachedTokens: 1000, cacheWriteTokens: 100, cacheWrite1hTokens: 50 },
        cost: { usd: 0.00123, source: 'catalogue' },
        attemptCount: 1,
      },
    ],
    ['a stream that was not one', { stream: false, attemptCount: 1 }],
    ['a usage with some counts absent', { usage: { inputTokens: 0, outputTokens: 7 } }],
    ['an empty usage', { usage: {} }],
    ['a cost from the config', { cost: { usd: 0, source: 'config' } }],
    ['an unpriced model', { usage: { inputTokens: 5 }, cost: { usd: null, source: 'unpriced' } }],
    ['a captured exchange and a trace, which a row leaves out', { exchange: newExchange({}, 1024) }],
  ])('gives back %s as written', (_, fields) => {
    const rows = createRows(4);
    const r = ended(fields);
    expect(rows.write(2, r)).toBe(true);
    expect(rows.read(2)).toStrictEqual(facts(r));
    expect(rows.id(2)).toBe(r.id);
  });

  it.each(RARE_FIELDS.map((field) => [field]))('leaves a record with %s to be kept whole, writing nothing', (field) => {
    const rare: Record<(typeof RARE_FIELDS)[number], unknown> = {
      servedBy: 'fallback',
      tries: [{ model: 'a', provider: 'p', status: 529 }],
      warnings: ['dropped: top_k'],
      error: 'upstream answered 500',
      errorKind: 'upstream_error',
      refusedBy: 'server',
      aborted: true,
    };
    const rows = createRows(2);
    const before = ended();
    rows.write(0, before);
    expect(rows.write(0, ended({ [field]: rare[field] }))).toBe(false);
    expect(rows.read(0)).toStrictEqual(facts(before));
  });

  it('takes a text equal to the row before and keeps each row its own', () => {
    const rows = createRows(3);
    const records = [ended({ model: 'a', userAgent: 'ua' }), ended({ model: 'a', userAgent: 'ub' }), ended({ model: 'b' })];
    for (const [i, r] of records.entries()) expect(rows.write(i, r)).toBe(true);
    for (const [i, r] of records.entries()) expect(rows.read(i)).toStrictEqual(facts(r));
    // Written over in place: the oldest place holds the newest request.
    const newest = ended({ model: 'b', sessionId: 's' });
    rows.write(0, newest);
    expect(rows.read(0)).toStrictEqual(facts(newest));
    expect(rows.read(1)).toStrictEqual(facts(records[1]!));
  });

  it('writes and reads every text column', () => {
    const rows = createRows(2);
    const texts = Object.fromEntries(TEXT_FIELDS.map((field) => [field, `${field} ${n}`])) as Partial<RequestRecord>;
    const r = ended(texts);
    rows.write(1, r);
    expect(rows.read(1)).toStrictEqual(facts(r));
  });

  it('has a column for every text field of the record, the id among them', () => {
    expect(TEXT_FIELDS).toContain('id');
    expect(new Set(TEXT_FIELDS).size).toBe(TEXT_FIELDS.length);
    for (const field of TEXT_FIELDS) expect(RARE_FIELDS).not.toContain(field);
  });
});
