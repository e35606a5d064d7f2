/**
 * Counters and histograms kept as plain numbers per label set, registered in the prom-client
 * registry as metrics whose values it formats when scraped. prom-client's own validate and hash
 * their labels on every update; these name a series by one string, the label values joined by
 * SEP, made once per label set: a request finds its series in a `labelTree` by the values it
 * holds, without building that string, and its updates are additions.
 */
import type { Registry } from 'prom-client';

/** Joins label values into a series key; no label value from the config or the record holds it. */
export const SEP = '\u0000';

interface Described {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
}

/** The shape prom-client's registry reads from a metric when it formats the text. */
interface MetricValue {
  readonly labels: Record<string, string | number>;
  readonly value: number;
  readonly metricName?: string;
}

function labelsOf(names: readonly string[], key: string): Record<string, string> {
  const values = names.length === 0 ? [] : key.split(SEP);
  const labels: Record<string, string> = {};
  names.forEach((name, i) => {
    labels[name] = values[i] ?? '';
  });
  return labels;
}

/** Registers `metric` (anything with prom-client's `get()`) with the registry. */
function register(registry: Registry, metric: object): void {
  registry.registerMetric(metric as Parameters<Registry['registerMetric']>[0]);
}

export interface FastCounter {
  /** Adds `amount` to the series whose label values, joined by SEP in `labelNames` order, are `key`. */
  add(key: string, amount: number): void;
  /** The series of `key`, made (at 0, and shown so) if new, to add to without finding it again. */
  series(key: string): CounterSeries;
}

export interface CounterSeries {
  readonly labels: Record<string, string>;
  value: number;
}

export function fastCounter(registry: Registry, d: Described): FastCounter {
  const series = new Map<string, CounterSeries>();
  register(registry, {
    name: d.name,
    help: d.help,
    type: 'counter',
    aggregator: 'sum',
    get: () => ({
      name: d.name,
      help: d.help,
      type: 'counter',
      aggregator: 'sum',
      values: [...series.values()].map((s): MetricValue => ({ labels: s.labels, value: s.value })),
    }),
  });
  const find = (key: string): CounterSeries => {
    let s = series.get(key);
    if (s === undefined) {
      s = { labels: labelsOf(d.labelNames, key), value: 0 };
      series.set(key, s);
    }
    return s;
  };
  return {
    add(key, amount) {
      find(key).value += amount;
    },
    series: find,
  };
}

export interface FastHistogram {
  /** Observes `value` in the series whose label values, joined by SEP, are `key`. */
  observe(key: string, value: number): void;
  /** The series of `key`, made if new, to observe into without finding it again. */
  series(key: string): HistogramSeries;
}

export interface HistogramSeries {
  readonly labels: Record<string, string>;
  readonly buckets: readonly number[];
  /** Observations per bucket, not cumulative; the last is above every bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

export function fastHistogram(registry: Registry, d: Described & { readonly buckets: readonly number[] }): FastHistogram {
  const { buckets } = d;
  const series = new Map<string, HistogramSeries>();
  const values = (): MetricValue[] => {
    const out: MetricValue[] = [];
    for (const s of series.values()) {
      // Made ahead of use (observe.ts keeps a label set's series together) but never observed: not shown.
      if (s.count === 0) continue;
      let cumulative = 0;
      buckets.forEach((le, i) => {
        cumulative += s.counts[i]!;
        out.push({ metricName: `${d.name}_bucket`, labels: { ...s.labels, le }, value: cumulative });
      });
      out.push({ metricName: `${d.name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
      out.push({ metricName: `${d.name}_sum`, labels: s.labels, value: s.sum });
      out.push({ metricName: `${d.name}_count`, labels: s.labels, value: s.count });
    }
    return out;
  };
  register(registry, {
    name: d.name,
    help: d.help,
    type: 'histogram',
    aggregator: 'sum',
    get: () => ({ name: d.name, help: d.help, type: 'histogram', aggregator: 'sum', values: values() }),
  });
  const find = (key: string): HistogramSeries => {
    let s = series.get(key);
    if (s === undefined) {
      s = { labels: labelsOf(d.labelNames, key), buckets, counts: new Float64Array(buckets.length + 1), sum: 0, count: 0 };
      series.set(key, s);
    }
    return s;
  };
  return {
    observe(key, value) {
      observeIn(find(key), value);
    },
    series: find,
  };
}

/** Counts `value` in its bucket of `s`. */
export function observeIn(s: HistogramSeries, value: number): void {
  const { buckets } = s;
  let i = 0;
  while (i < buckets.length && value > buckets[i]!) i++;
  s.counts[i] = (s.counts[i] ?? 0) + 1;
  s.sum += value;
  s.count++;
}

/** A label value as a request holds it: a string (which keeps its hash once computed) or a number (a status). */
export type LabelValue = string | number;

export interface LabelTree<T, C> {
  /** What is kept under `values`, made by the tree's `make(values, context)` the first time. */
  get(values: readonly LabelValue[], context: C): T;
  clear(): void;
}

/**
 * What is kept per list of label values, found by walking one Map per value: no key string is
 * built per request (a string made per request must be flattened and hashed for each lookup),
 * and a value the request shares with the config or a constant carries its hash already. At most
 * `limit` lists are kept, since a caller may send values of its choosing (model names); past it the
 * tree starts again, and what `make` made (series) stays in its metric.
 */
export function labelTree<T, C>(make: (values: readonly LabelValue[], context: C) => T, limit = 4096): LabelTree<T, C> {
  let root = new Map<LabelValue, unknown>();
  let size = 0;
  const parentOf = (values: readonly LabelValue[]): Map<LabelValue, unknown> => {
    let node = root;
    for (let i = 0; i < values.length - 1; i++) {
      let next = node.get(values[i]!) as Map<LabelValue, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        node.set(values[i]!, next);
      }
      node = next;
    }
    return node;
  };
  return {
    get(values, context) {
      const last = values[values.length - 1]!;
      let parent = parentOf(values);
      let kept = parent.get(last) as T | undefined;
      if (kept === undefined) {
        if (size >= limit) {
          root = new Map();
          size = 0;
          parent = parentOf(values);
        }
        kept = make(values, context);
        parent.set(last, kept);
        size++;
      }
      return kept;
    },
    clear() {
      root = new Map();
      size = 0;
    },
  };
}
