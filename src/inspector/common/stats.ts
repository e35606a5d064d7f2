/**
 * Totals over the kept exchanges, for the Stats view: requests and failures, tokens, the cache hit
 * rate, cost, and the 50th and 95th percentiles of the duration and the time to first token; the same
 * per model and per key; and the traffic in time buckets for the charts. Pure functions of the rows.
 */
import { failed } from './filter.js';
import type { ExchangeSummary } from './types.js';

export interface Totals {
  readonly requests: number;
  readonly failed: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheRead: number;
  /** Cache reads over input tokens; undefined without input tokens. */
  readonly hitRate?: number;
  /** Dollars of the priced requests; undefined when none was priced. */
  readonly costUsd?: number;
  /** Requests of models without a known price. */
  readonly unpriced: number;
  readonly durationP50?: number;
  readonly durationP95?: number;
  readonly ttftP50?: number;
  readonly ttftP95?: number;
}

/** The nearest-rank percentile `p` (0–100) of ascending `sorted`. */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1];
}

export function totals(rows: readonly ExchangeSummary[]): Totals {
  let failures = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let cacheRead = 0;
  let costUsd: number | undefined;
  let unpriced = 0;
  const durations: number[] = [];
  const ttfts: number[] = [];
  for (const r of rows) {
    if (failed(r)) failures++;
    inputTokens += r.usage?.inputTokens ?? 0;
    outputTokens += r.usage?.outputTokens ?? 0;
    cacheRead += r.usage?.cachedTokens ?? 0;
    if (r.costUsd === null) unpriced++;
    else if (r.costUsd !== undefined) costUsd = (costUsd ?? 0) + r.costUsd;
    if (r.durationMs !== undefined && !r.pending) durations.push(r.durationMs);
    if (r.ttftMs !== undefined) ttfts.push(r.ttftMs);
  }
  durations.sort((a, b) => a - b);
  ttfts.sort((a, b) => a - b);
  const optional = (name: string, v: number | undefined) => (v === undefined ? {} : { [name]: v });
  return {
    requests: rows.length,
    failed: failures,
    inputTokens,
    outputTokens,
    cacheRead,
    ...(inputTokens > 0 ? { hitRate: cacheRead / inputTokens } : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
    unpriced,
    ...optional('durationP50', percentile(durations, 50)),
    ...optional('durationP95', percentile(durations, 95)),
    ...optional('ttftP50', percentile(ttfts, 50)),
    ...optional('ttftP95', percentile(ttfts, 95)),
  };
}

/** Totals per group (a model, a key), the busiest first. */
export function totalsBy(rows: readonly ExchangeSummary[], keyOf: (r: ExchangeSummary) => string | undefined): [string, Totals][] {
  const groups = new Map<string, ExchangeSummary[]>();
  for (const r of rows) {
    const k = keyOf(r);
    if (k === undefined) continue;
    const list = groups.get(k);
    if (list) list.push(r);
    else groups.set(k, [r]);
  }
  return [...groups].map(([k, list]): [string, Totals] => [k, totals(list)]).sort((a, b) => b[1].requests - a[1].requests || (a[0] < b[0] ? -1 : 1));
}

export interface Bucket {
  /** Epoch ms the bucket starts. */
  readonly start: number;
  readonly requests: number;
  readonly failed: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheRead: number;
}

/** The rows in `n` equal spans of time from the oldest to the newest (one span when they all came at once). */
export function buckets(rows: readonly ExchangeSummary[], n: number): Bucket[] {
  if (rows.length === 0 || n < 1) return [];
  let first = Infinity;
  let last = -Infinity;
  for (const r of rows) {
    first = Math.min(first, r.time);
    last = Math.max(last, r.time);
  }
  const span = Math.max(1, last - first + 1);
  const count = last === first ? 1 : n;
  const width = span / count;
  const out = Array.from({ length: count }, (_, i) => ({ start: first + i * width, requests: 0, failed: 0, inputTokens: 0, outputTokens: 0, cacheRead: 0 }));
  for (const r of rows) {
    const b = out[Math.min(count - 1, Math.floor((r.time - first) / width))]!;
    b.requests++;
    if (failed(r)) b.failed++;
    b.inputTokens += r.usage?.inputTokens ?? 0;
    b.outputTokens += r.usage?.outputTokens ?? 0;
    b.cacheRead += r.usage?.cachedTokens ?? 0;
  }
  return out;
}
