import { describe, expect, it } from 'vitest';
import { matches, NO_FILTER } from './filter.js';
import type { ExchangeSummary } from './types.js';

const base: ExchangeSummary = { id: 'req_1', time: 0, method: 'POST', path: '/v1/responses', translated: true, warnings: 0, attempts: 1 };
const ok: ExchangeSummary = { ...base, status: 200, model: 'gpt-test', keyGroup: 'dev', client: { kind: 'codex', label: 'Codex 0.169.0 (exec)' }, protocol: 'responses', upstreamProtocol: 'messages' };
const bad: ExchangeSummary = { ...base, id: 'req_2', status: 502, model: 'claude-test', keyGroup: 'ci', error: 'Provider timed out' };
const pending: ExchangeSummary = { ...base, id: 'req_3', pending: true, model: 'gpt-test' };
const rows = [ok, bad, pending];
const ids = (f: Partial<typeof NO_FILTER>) => rows.filter((r) => matches(r, { ...NO_FILTER, ...f })).map((r) => r.id);

describe('matches', () => {
  it('filters by status class, model and group', () => {
    expect(ids({})).toEqual(['req_1', 'req_2', 'req_3']);
    expect(ids({ status: '2xx' })).toEqual(['req_1']);
    expect(ids({ status: '5xx' })).toEqual(['req_2']);
    expect(ids({ status: 'failed' })).toEqual(['req_2']);
    expect(ids({ status: 'pending' })).toEqual(['req_3']);
    expect(ids({ model: 'gpt-test' })).toEqual(['req_1', 'req_3']);
    expect(ids({ group: 'ci' })).toEqual(['req_2']);
  });

  it('finds every word of the text somewhere in the row, case-insensitively', () => {
    expect(ids({ text: 'codex' })).toEqual(['req_1']);
    expect(ids({ text: 'TIMED out' })).toEqual(['req_2']);
    expect(ids({ text: 'translated 502' })).toEqual(['req_2']);
    expect(ids({ text: 'codex 502' })).toEqual([]);
    expect(ids({ text: '  ' })).toEqual(['req_1', 'req_2', 'req_3']);
  });
});
