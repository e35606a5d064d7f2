import { describe, expect, it } from 'vitest';
import type { ExchangeJson } from '../log/exchange-json.js';
import { exchangeJson } from '../log/exchange-json.js';
import { newExchange } from '../log/exchange.js';
import { newRecord, type RequestRecord } from '../log/record.js';
import { createStore, ENTRY_OVERHEAD, recordOf, summaryOf } from './store.js';
import { expectLinear, GROWTH } from '../../test/helpers/linear-time.js';

let n = 0;
/** A request whose client body is `bodyBytes` of JSON, captured as the gateway captures it. */
function record(bodyBytes = 0): RequestRecord {
  n++;
  const exchange = newExchange({ 'user-agent': 'curl/8', 'content-type': 'application/json' }, 1 << 30);
  if (bodyBytes > 0) {
    const body = Buffer.from(JSON.stringify({ pad: 'x'.repeat(Math.max(0, bodyBytes - 10)) }));
    exchange.request.chunks.push({ t: 1, data: body });
    exchange.bytes = body.length;
  }
  return { id: `req_${n}`, startedAt: 1_700_000_000_000 + n, start: 0, method: 'POST', path: '/v1/chat/completions', userAgent: 'curl/8', exchange };
}
const ids = (store: ReturnType<typeof createStore>) => store.entries().map((e) => e.id);

describe('the inspector store', () => {
  it('keeps the last `capacity` exchanges, newest first, and counts what it dropped', () => {
    const store = createStore({ capacity: 3 });
    const records = Array.from({ length: 5 }, () => record());
    for (const r of records) {
      store.addLive(r);
      store.endLive(r);
    }
    expect(ids(store)).toEqual([records[4]!.id, records[3]!.id, records[2]!.id]);
    expect(store.size).toBe(3);
    expect(store.evicted).toBe(2);
    expect(store.get(records[0]!.id)).toBeUndefined();
    expect(store.get(records[4]!.id)?.kind).toBe('kept');
  });

  it('holds bodies in its arena, and lets the oldest go first to stay under the byte cap, keeping their rows', () => {
    // The arena is what the rows' overhead leaves of the cap: 25,000 bytes here.
    const store = createStore({ capacity: 3, maxBytes: 25_000 + 3 * ENTRY_OVERHEAD });
    const a = record(10_000);
    const b = record(10_000);
    const c = record(10_000);
    store.addLive(a);
    store.addLive(b);
    // In flight, only the overhead counts: the bodies are still coming.
    expect(store.bytes).toBe(2 * ENTRY_OVERHEAD);
    store.endLive(a);
    store.endLive(b);
    expect(store.bytes).toBe(2 * ENTRY_OVERHEAD + 20_000);
    store.addLive(c);
    store.endLive(c);
    expect(ids(store)).toEqual([c.id, b.id, a.id]);
    expect(store.bytes).toBe(store.maxBytes);
    expect(store.evicted).toBe(0);
    const old = store.get(a.id)!;
    expect(summaryOf(old)).toMatchObject({ id: a.id, bodiesDropped: true, client: { label: 'curl/8' } });
    expect(old.kind === 'kept' && exchangeJson(recordOf(old)).request).toBeUndefined();
    const kept = store.get(c.id)!;
    expect(summaryOf(kept).bodiesDropped).toBeUndefined();
    expect(kept.kind === 'kept' && exchangeJson(recordOf(kept)).request?.body.bytes).toBe(10_000);
  });

  it('holds rows and bodies together within its cap', () => {
    const store = createStore({ capacity: 10, maxBytes: 10 * ENTRY_OVERHEAD + 30_000 });
    let most = 0;
    for (let i = 0; i < 50; i++) {
      const r = record(7_000);
      store.addLive(r);
      store.endLive(r);
      most = Math.max(most, store.bytes);
    }
    expect(store.size).toBe(10);
    expect(most).toBeGreaterThan(store.maxBytes - 7_000);
    expect(most).toBeLessThanOrEqual(store.maxBytes);
  });

  it('says a row lost its bodies even when the row was built while it had them', () => {
    const store = createStore({ capacity: 2, maxBytes: 15_000 + 2 * ENTRY_OVERHEAD });
    const a = record(10_000);
    store.addLive(a);
    expect(summaryOf(store.endLive(a)!).bodiesDropped).toBeUndefined();
    const b = record(10_000);
    store.addLive(b);
    store.endLive(b);
    expect(summaryOf(store.get(a.id)!).bodiesDropped).toBe(true);
  });

  it('drops whole rows only when their overhead alone passes the cap', () => {
    const store = createStore({ capacity: 100, maxBytes: 2 * ENTRY_OVERHEAD + 100 });
    const records = [record(), record(), record()];
    for (const r of records) {
      store.addLive(r);
      store.endLive(r);
    }
    expect(ids(store)).toEqual([records[2]!.id, records[1]!.id]);
    expect(store.evicted).toBe(1);
  });

  it('packs an ended request: the JSON form is the same as from the record it was', () => {
    const store = createStore();
    const r = record(300);
    r.exchange!.response.chunks.push({ t: 5, data: 'data: {"a":1}\n\n' }, { t: 7, data: Buffer.from('data: [DONE]\n\n') });
    store.addLive(r);
    const before = exchangeJson(r);
    const entry = store.endLive(r)!;
    expect(entry.kind).toBe('kept');
    expect(entry.kind === 'kept' && entry.packed.facts.exchange).toBeUndefined();
    expect(entry.kind === 'kept' && exchangeJson(recordOf(entry))).toEqual(before);
  });

  it('keeps the newest exchange even when it alone passes the cap', () => {
    const store = createStore({ maxBytes: 1000 });
    const big = record(50_000);
    store.addLive(big);
    expect(store.endLive(big)?.id).toBe(big.id);
    expect(ids(store)).toEqual([big.id]);
  });

  it('summarises a live entry as pending until it ends, then once', () => {
    const store = createStore();
    const r = record();
    const entry = store.addLive(r);
    expect(summaryOf(entry).pending).toBe(true);
    r.status = 200;
    const ended = store.endLive(r)!;
    const done = summaryOf(ended);
    expect(done).toMatchObject({ id: r.id, status: 200, client: { label: 'curl/8' } });
    expect(done.pending).toBeUndefined();
    expect(summaryOf(store.get(r.id)!)).toBe(done);
  });

  it('holds the same record object while the request is in flight, serialising nothing', () => {
    const store = createStore();
    const r = record();
    store.addLive(r);
    const entry = store.get(r.id);
    expect(entry?.kind === 'live' && entry.record).toBe(r);
  });

  it.each([
    ['none was live (history, no page open)', [] as number[]],
    ['one was live (a page opened while it was in flight)', [1]],
    ['all were live', [0, 1, 2]],
  ])('keeps ended requests in the order they ended and finds each by id when %s', (_, liveOnes) => {
    const store = createStore({ capacity: 3 });
    const records = [record(100), record(100), record(100)];
    for (const i of liveOnes) store.addLive(records[i]!);
    // History: the end of a request that had no live entry keeps it as the newest.
    for (const r of records) if (!store.endLive(r)) store.addEnded(r, true);
    for (const r of records) expect(store.get(r.id)).toMatchObject({ id: r.id, kind: 'kept' });
    expect(store.get('req_none')).toBeUndefined();
    const live = new Set(liveOnes);
    // A live entry kept its place of arrival, before the others, which went in as they ended.
    const expected = [...records.filter((_, i) => live.has(i)), ...records.filter((_, i) => !live.has(i))].map((r) => r.id).reverse();
    expect(ids(store)).toEqual(expected);
    // Dropping kept entries leaves nothing behind to find.
    for (let i = 0; i < 3; i++) store.addEnded(record(), true);
    for (const r of records) expect(store.get(r.id)).toBeUndefined();
    expect(store.evicted).toBe(3);
  });

  it('keeps rows without bodies in columns and records with a rare fact as they are, in the order they ended', () => {
    const store = createStore({ capacity: 3 });
    const plain = () => ({ ...newRecord(`req_${++n}`, 1_700_000_000_000 + n, n, 'POST', '/v1/messages'), status: 200, usage: { inputTokens: n } });
    const failed = { ...plain(), status: 500, error: 'upstream answered 500' };
    const ended = [plain(), plain(), failed, record(100), plain()];
    const whole = [false, false, false, true, false];
    for (const [i, r] of ended.entries()) store.addEnded(r, whole[i]!);
    // The first two (rows) went out of the ring of three; each place was a row or a record in turn.
    expect(ids(store)).toEqual([ended[4]!.id, ended[3]!.id, failed.id]);
    expect(store.size).toBe(3);
    for (const r of ended.slice(0, 2)) expect(store.get(r.id)).toBeUndefined();
    // The failed request keeps its record, as it is.
    const kept = store.get(failed.id)!;
    expect(kept).toMatchObject({ kind: 'kept', bodiesSkipped: true });
    expect(recordOf(kept as Parameters<typeof recordOf>[0])).toBe(failed);
    expect(summaryOf(kept)).toMatchObject({ status: 500, error: 'upstream answered 500' });
    // The newest was a row: read back from the columns, its facts as they were.
    const row = ended[4]!;
    const entry = store.get(row.id)!;
    expect(entry).toMatchObject({ kind: 'kept', bodiesSkipped: true });
    const read = recordOf(entry as Parameters<typeof recordOf>[0]);
    expect(read).not.toBe(row);
    expect(read).toStrictEqual({ ...row, exchange: undefined, trace: undefined });
    expect(summaryOf(entry)).toMatchObject({ id: row.id, status: 200, bodiesSkipped: true });
    expect(store.get(ended[3]!.id)).toMatchObject({ kind: 'kept', bodiesSkipped: false });
    expect(store.newest()?.id).toBe(ended[4]!.id);
    // Rows count in the bound as every entry does.
    expect(store.bytes).toBe(3 * ENTRY_OVERHEAD + 100);
  });

  it('ignores the end of a request it already dropped, which history keeps again as a new entry', () => {
    const store = createStore({ capacity: 1 });
    const a = record();
    const b = record();
    store.addLive(a);
    store.addLive(b);
    expect(store.endLive(a)).toBeUndefined();
    expect(ids(store)).toEqual([b.id]);
    store.addEnded(a, true);
    expect(store.newest()?.id).toBe(a.id);
    // b's live entry went with a's arrival; its end finds nothing live.
    expect(store.endLive(b)).toBeUndefined();
    expect(ids(store)).toEqual([a.id]);
  });

  it('keeps recorded exchanges with repeated ids apart', () => {
    const store = createStore();
    const json = { v: 1, id: 'req_x', time: '2026-01-01T00:00:00.000Z', method: 'POST', path: '/v1/messages' } as ExchangeJson;
    store.addRecorded(json, 100);
    store.addRecorded(json, 100);
    expect(ids(store)).toEqual(['req_x~2', 'req_x']);
    expect(store.bytes).toBe(200);
  });

  it('loads a file of one id repeated in linear time, each line its own row', () => {
    const n = 20_000;
    const json = { v: 1, id: 'req_x', time: '2026-01-01T00:00:00.000Z', method: 'POST', path: '/v1/messages' } as ExchangeJson;
    const load = (size: number) => {
      const store = createStore({ capacity: size });
      // A recorded `req_x~3` among them must not be overwritten by a suffixed copy either.
      store.addRecorded({ ...json, id: 'req_x~3' }, 1);
      for (let i = 0; i < size - 1; i++) store.addRecorded(json, 1);
      return store;
    };
    const seen = ids(expectLinear((size) => size, load, n / GROWTH));
    expect(new Set(seen).size).toBe(n);
    expect(seen).toContain('req_x~3');
    expect(seen).toContain(`req_x~${n}`);
  });
});
