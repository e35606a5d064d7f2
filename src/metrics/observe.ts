/**
 * Turns each request's record into metrics when its response closes. The work per request is a
 * few additions to series found by the values its record holds (`labelTree`, series.ts), with no
 * label string built; the rest happens when Prometheus scrapes: the gauges of what is in flight
 * and of the credentials are set then.
 */
import type { Config, MetricLabel } from '../config/types.js';
import type { RequestRecord } from '../log/record.js';
import type { RequestObserver } from '../pipeline/context.js';
import type { Provider } from '../providers/types.js';
import { modelLabels, optionalLabelValues } from './labels.js';
import type { MetricSet } from './registry.js';
import { type CounterSeries, type HistogramSeries, type LabelValue, labelTree, observeIn, SEP } from './series.js';
import { genAiOperation, genAiSystem } from './system.js';

/** What the observer reads beyond the record: the state now serving (its config and providers). */
export interface Served {
  config(): Config;
  providers(): Iterable<Provider>;
}

export interface MetricsObserver extends RequestObserver {
  /** Sets the gauges read only when scraped: requests and streams in flight, credential states. */
  refresh(): void;
}

const STATES = ['ready', 'cooling', 'refused'] as const;

/** The series a model request of one label set updates, found once and kept: a request observes into them directly. */
interface GenAiSeries {
  readonly provider: string;
  readonly duration: HistogramSeries;
  readonly firstChunk: HistogramSeries;
  readonly input: HistogramSeries;
  readonly output: HistogramSeries;
  readonly cacheRead: HistogramSeries;
  readonly cacheWrite: HistogramSeries;
  /** `provider`, the requested model's label and the optional labels: the cost counters' series, made on first use. */
  readonly costKey: string;
  cost: CounterSeries | undefined;
  unpriced: CounterSeries | undefined;
  cacheReads: CounterSeries | undefined;
  cacheWrites: CounterSeries | undefined;
}

export function metricsObserver(m: MetricSet, labels: readonly MetricLabel[], served: Served): MetricsObserver {
  const named = labels.includes('model');
  const optionalOn = labels.some((l) => l !== 'model');
  const inFlight = new Set<RequestRecord>();
  /** The values a request is found by: `fixed`, then the optional labels' (key group, key) when listed. */
  const withOptional = (fixed: LabelValue[], record: RequestRecord): LabelValue[] => {
    if (optionalOn) for (const v of optionalLabelValues(labels, record)) fixed.push(v);
    return fixed;
  };
  const suffixOf = (values: readonly LabelValue[], from: number): string => {
    let suffix = '';
    for (let i = from; i < values.length; i++) suffix += SEP + String(values[i]);
    return suffix;
  };

  // By protocol, upstream protocol, provider, route, status, error kind, optional labels: the series key is those values.
  const REQUEST_FIXED = 6;
  const requests = labelTree((values: readonly LabelValue[]) => m.requests.series(values.join(SEP)));

  // By provider, operation, model, served-by model, upstream model, error kind, optional labels: what the request's
  // record holds, turned into labels (modelLabels reads the config) only the first time.
  const GEN_AI_FIXED = 6;
  const genAiSeries = labelTree((values: readonly LabelValue[], record: RequestRecord): GenAiSeries => {
    const config = served.config();
    const provider = record.provider!;
    const [requested, sent] = modelLabels(config, record, named);
    const optional = suffixOf(values, GEN_AI_FIXED);
    const base = genAiSystem(config.providers.get(provider)?.type) + SEP + genAiOperation(record.operation) + SEP + requested + SEP + sent;
    const tokens = (type: string) => m.tokens.series(`${base}${SEP}${type}${optional}`);
    return {
      provider,
      duration: m.duration.series(base + SEP + String(values[5]) + optional),
      firstChunk: m.firstChunk.series(base + optional),
      input: tokens('input'),
      output: tokens('output'),
      cacheRead: tokens('cache_read'),
      cacheWrite: tokens('cache_write'),
      costKey: provider + SEP + requested + optional,
      cost: undefined,
      unpriced: undefined,
      cacheReads: undefined,
      cacheWrites: undefined,
    };
  });
  // Model labels follow the config's entries: a reload starts the kept series' lookups again.
  let seriesConfig: Config | undefined;

  /** One attempt on `provider` for `model`, after one for `previous` (undefined: the first). */
  const attempted = (provider: string, model: string | undefined, previous: string | undefined) => {
    m.attempts.add(provider, 1);
    if (previous !== undefined && model === previous) m.retries.add(provider, 1);
  };

  const upstream = (record: RequestRecord) => {
    const tries = record.tries;
    let previous: string | undefined;
    let previousProvider = '';
    if (tries) {
      for (const t of tries) {
        if (previous !== undefined && t.model !== previous) m.fallbacks.add(previousProvider, 1);
        attempted(t.provider, t.model, previous);
        previous = t.model;
        previousProvider = t.provider;
      }
    }
    // The last attempt answered (2xx, or an error passed on as it came): it is not among the failed tries.
    if (record.provider !== undefined && (record.attemptCount ?? 0) > (tries?.length ?? 0)) {
      const model = record.servedBy ?? record.model;
      if (previous !== undefined && model !== previous) m.fallbacks.add(previousProvider, 1);
      attempted(record.provider, model, previous);
    }
  };

  const genAi = (record: RequestRecord, errorKind: string) => {
    const config = served.config();
    if (config !== seriesConfig) {
      seriesConfig = config;
      genAiSeries.clear();
    }
    const fixed = [record.provider!, record.operation ?? '', record.model ?? '', record.servedBy ?? '', record.upstreamModel ?? '', errorKind];
    const g = genAiSeries.get(withOptional(fixed, record), record);
    observeIn(g.duration, (record.durationMs ?? 0) / 1000);
    if (record.stream && record.ttfbMs !== undefined) observeIn(g.firstChunk, record.ttfbMs / 1000);
    const usage = record.usage;
    if (usage) {
      if (usage.inputTokens !== undefined) observeIn(g.input, usage.inputTokens);
      if (usage.outputTokens !== undefined) observeIn(g.output, usage.outputTokens);
      if (usage.cachedTokens) {
        observeIn(g.cacheRead, usage.cachedTokens);
        g.cacheReads ??= m.cacheTokens.series(`${g.provider}${SEP}read`);
        g.cacheReads.value += usage.cachedTokens;
      }
      if (usage.cacheWriteTokens) {
        observeIn(g.cacheWrite, usage.cacheWriteTokens);
        g.cacheWrites ??= m.cacheTokens.series(`${g.provider}${SEP}write`);
        g.cacheWrites.value += usage.cacheWriteTokens;
      }
    }
    const spent = record.cost;
    if (spent) {
      if (typeof spent.usd === 'number') {
        g.cost ??= m.cost.series(g.costKey);
        g.cost.value += spent.usd;
      } else {
        g.unpriced ??= m.unpriced.series(g.costKey);
        g.unpriced.value += 1;
      }
    }
  };

  return {
    requestStarted(record) {
      inFlight.add(record);
    },
    requestEnded(record) {
      inFlight.delete(record);
      const protocol = record.protocol ?? '';
      const upstreamProtocol = record.upstreamProtocol ?? '';
      const route = upstreamProtocol === '' ? 'none' : upstreamProtocol === protocol ? 'native' : 'translated';
      const errorKind = record.errorKind ?? (record.aborted ? 'client_left' : record.error !== undefined ? 'stream_error' : '');
      const values = withOptional([protocol, upstreamProtocol, record.provider ?? '', route, record.status ?? '', errorKind], record);
      requests.get(values, undefined).value += 1;
      if (record.refusedBy !== undefined) m.refusals.add(record.refusedBy + suffixOf(values, REQUEST_FIXED), 1);
      if (record.provider === undefined) return;
      genAi(record, errorKind);
      upstream(record);
    },
    refresh() {
      m.inFlight.set(inFlight.size);
      let streams = 0;
      for (const r of inFlight) if (r.stream) streams++;
      m.streamsInFlight.set(streams);
      m.credentials.reset();
      for (const p of served.providers()) {
        for (const { name, standing } of p.standings?.() ?? []) {
          for (const state of STATES) m.credentials.set({ provider: p.id, credential: name, state }, state === standing ? 1 : 0);
        }
      }
    },
  };
}
