/** Small statistics helpers (no dependencies). */

/** The q-quantile (0..1) of a sorted array, nearest-rank. */
export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[idx];
}

/** count, min, p50, p90, p99, max, mean of the finite values, or undefined when there are none. */
export function summarize(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  return { n: v.length, min: v[0], p50: quantile(v, 0.5), p90: quantile(v, 0.9), p99: quantile(v, 0.99), max: v[v.length - 1], mean };
}

/** Median (mean of the middle two for an even count), min and max of the finite values. */
export function spread(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return { median: NaN, min: NaN, max: NaN, n: 0 };
  const mid = v.length >> 1;
  const median = v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  return { median, min: v[0], max: v[v.length - 1], n: v.length };
}
