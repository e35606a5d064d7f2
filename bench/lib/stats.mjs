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

/** Student's t at 97.5 % for 1 to 30 degrees of freedom (two-sided 95 %). */
const T_975 = [12.71, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];
const t975 = (df) => (df <= 30 ? T_975[df - 1] : 1.96 + 2.4 / df);

/**
 * The geometric mean of ratios and its 95 % interval (Student's t on their logarithms): where the
 * median of a few pairs says only "about", this says how far the true ratio can be from it. It
 * narrows as the square root of the pairs, and with longer windows, whose spread is less
 * (bench/README.md, "Pairs loaded together").
 */
export function ratioInterval(values) {
  const logs = values.filter((x) => typeof x === 'number' && x > 0 && Number.isFinite(x)).map(Math.log);
  const n = logs.length;
  if (n === 0) return { mean: NaN, low: NaN, high: NaN, n: 0 };
  const m = logs.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return { mean: Math.exp(m), low: NaN, high: NaN, n };
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - m) ** 2, 0) / (n - 1));
  const half = (t975(n - 1) * sd) / Math.sqrt(n);
  return { mean: Math.exp(m), low: Math.exp(m - half), high: Math.exp(m + half), n };
}
