import { describe, expect, it } from 'vitest';
import { buckets, percentile, totals, totalsBy } from './stats.js';
import type { ExchangeSummary } from './types.js';

type Extra = { -readonly [K in keyof ExchangeSummary]?: ExchangeSummary[K] | undefined };
const row = (n: number, extra: Extra = {}): ExchangeSummary => ({
  id: `r${n}`,
  time: 1_000_000 + n * 1000,
  method: 'POST',
  path: '/v1/chat/completions',
  translated: false,
  warnings: 0,
  attempts: 1,
  status: 200,
  durationMs: n * 10,
  usage: { inputTokens: 100, outputTokens: 10, cachedTokens: 40 },
  ...(extra as Partial<ExchangeSummary>),
});

describe('the inspector stats', () => {
  it.each([
    [[], 50, undefined],
    [[7], 50, 7],
    [[1, 2, 3, 4], 50, 2],
    [[1, 2, 3, 4], 95, 4],
    [Array.from({ length: 100 }, (_, i) => i + 1), 95, 95],
  ])('percentile of %j at %i is %s', (values, p, expected) => {
    expect(percentile(values, p)).toBe(expected);
  });

  it('adds up requests, failures, tokens, hit rate, cost and the latency percentiles', () => {
    const rows = [
      row(1, { costUsd: 0.5, ttftMs: 5 }),
      row(2, { costUsd: 0.25, ttftMs: 7 }),
      row(3, { status: 502, usage: undefined, error: 'down', costUsd: null }),
      row(4, { model: 'b' }),
    ];
    expect(totals(rows)).toEqual({
      requests: 4,
      failed: 1,
      inputTokens: 300,
      outputTokens: 30,
      cacheRead: 120,
      hitRate: 0.4,
      costUsd: 0.75,
      unpriced: 1,
      durationP50: 20,
      durationP95: 40,
      ttftP50: 5,
      ttftP95: 7,
    });
  });

  it('groups by a key, the busiest first, leaving out rows without one', () => {
    const rows = [row(1, { model: 'a' }), row(2, { model: 'b' }), row(3, { model: 'b' }), row(4)];
    expect(totalsBy(rows, (r) => r.model).map(([k, t]) => [k, t.requests])).toEqual([
      ['b', 2],
      ['a', 1],
    ]);
  });

  it('splits the traffic into equal spans of time', () => {
    const rows = [row(0), row(1), row(9, { status: 500 })];
    const b = buckets(rows, 3);
    expect(b.map((x) => [x.requests, x.failed, x.inputTokens])).toEqual([
      [2, 0, 200],
      [0, 0, 0],
      [1, 1, 100],
    ]);
    expect(buckets([row(1), row(1)], 5)).toHaveLength(1);
    expect(buckets([], 5)).toEqual([]);
  });
});
