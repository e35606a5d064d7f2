/**
 * Turns each request's record into metrics when its response closes. The work per request is a few
 * counter and histogram updates on children cached per label set (prom-client's own `labels()`
 * hashes its arguments on every call); the rest happens when Prometheus scrapes.
 */
import type { Counter, Histogram } from 'prom-client';
import type { Config, MetricLabel } from '../config/types.js';
import type { RequestRecord } from '../log/record.js';
import type { RequestObserver } from '../pipeline/context.js';
import type { Provider } from '../providers/types.js';
import { modelLabels, optionalLabelValues } from './labels.js';
import type { MetricSet } from './registry.js';
import { genAiOperation, genAiSystem } from './system.js';

/** What the observer reads beyond the record: the state now serving (its config and providers). */
export interface Served {
  config(): Config;
  providers(): Iterable<Provider>;
}

type CounterChild = ReturnType<Counter['labels']>;
type HistogramChild = ReturnType<Histogram['labels']>;

/** A metric's children by their label values, made once per set of values. */
function children<T>(make: (values: string[]) => T): (values: string[]) => T {
  const made = new Map<string, T>();
  return (values) => {
    const key = values.join('\u0000');
    let child = made.get(key);
    if (child === undefined) {
      child = make(values);
      made.set(key, child);
    }
    return child;
  };
}

const counter = (c: Counter) => children<CounterChild>((v) => c.labels(...v));
const histogram = (h: Histogram) => children<HistogramChild>((v) => h.labels(...v));

export interface MetricsObserver extends RequestObserver {
  /** Sets the gauges read only when scraped: requests and streams in flight, credential states. */
  refresh(): void;
}

export function metricsObserver(m: MetricSet, labels: readonly MetricLabel[], served: Served): MetricsObserver {
  const named = labels.includes('model');
  const requests = counter(m.requests);
  const duration = histogram(m.duration);
  const firstChunk = histogram(m.firstChunk);
  const tokens = histogram(m.tokens);
  const cacheTokens = counter(m.cacheTokens);
  const cost = counter(m.cost);
  const unpriced = counter(m.unpriced);
  const attempts = counter(m.attempts);
  const retries = counter(m.retries);
  const fallbacks = counter(m.fallbacks);
  const refusals = counter(m.refusals);
  const inFlight = new Set<RequestRecord>();

  /** One attempt on `provider` for `model`, after one for `previous` (undefined: the first). */
  const attempted = (provider: string, model: string | undefined, previous: string | undefined) => {
    attempts([provider]).inc();
    if (previous === undefined) return;
    if (model === previous) retries([provider]).inc();
  };

  const upstream = (record: RequestRecord) => {
    const tries = record.tries;
    let previous: string | undefined;
    let previousProvider = '';
    if (tries) {
      for (const t of tries) {
        if (previous !== undefined && t.model !== previous) fallbacks([previousProvider]).inc();
        attempted(t.provider, t.model, previous);
        previous = t.model;
        previousProvider = t.provider;
      }
    }
    // The last attempt answered (2xx, or an error passed on as it came): it is not among the failed tries.
    const count = record.attemptCount ?? 0;
    if (record.provider !== undefined && count > (tries?.length ?? 0)) {
      const model = record.servedBy ?? record.model;
      if (previous !== undefined && model !== previous) fallbacks([previousProvider]).inc();
      attempted(record.provider, model, previous);
    }
  };

  const genAi = (record: RequestRecord, config: Config, errorKind: string, optional: string[]) => {
    const provider = record.provider!;
    const [requested, sent] = modelLabels(config, record, named);
    const base = [genAiSystem(config.providers.get(provider)?.type), genAiOperation(record.operation), requested, sent];
    duration([...base, errorKind, ...optional]).observe((record.durationMs ?? 0) / 1000);
    if (record.stream && record.ttfbMs !== undefined) firstChunk([...base, ...optional]).observe(record.ttfbMs / 1000);
    const usage = record.usage;
    if (usage) {
      if (usage.inputTokens !== undefined) tokens([...base, 'input', ...optional]).observe(usage.inputTokens);
      if (usage.outputTokens !== undefined) tokens([...base, 'output', ...optional]).observe(usage.outputTokens);
      if (usage.cachedTokens) {
        tokens([...base, 'cache_read', ...optional]).observe(usage.cachedTokens);
        cacheTokens([provider, 'read']).inc(usage.cachedTokens);
      }
      if (usage.cacheWriteTokens) {
        tokens([...base, 'cache_write', ...optional]).observe(usage.cacheWriteTokens);
        cacheTokens([provider, 'write']).inc(usage.cacheWriteTokens);
      }
    }
    const spent = record.cost;
    if (spent) {
      if (typeof spent.usd === 'number') cost([provider, requested, ...optional]).inc(spent.usd);
      else unpriced([provider, requested, ...optional]).inc();
    }
  };

  return {
    requestStarted(record) {
      inFlight.add(record);
    },
    requestEnded(record) {
      inFlight.delete(record);
      const optional = optionalLabelValues(labels, record);
      const protocol = record.protocol ?? '';
      const upstreamProtocol = record.upstreamProtocol ?? '';
      const route = upstreamProtocol === '' ? 'none' : upstreamProtocol === protocol ? 'native' : 'translated';
      const errorKind = record.errorKind ?? (record.aborted ? 'client_left' : record.error !== undefined ? 'stream_error' : '');
      const status = record.status === undefined ? '' : String(record.status);
      requests([protocol, upstreamProtocol, record.provider ?? '', route, status, errorKind, ...optional]).inc();
      if (record.refusedBy !== undefined) refusals([record.refusedBy, ...optional]).inc();
      if (record.provider === undefined) return;
      genAi(record, served.config(), errorKind, optional);
      upstream(record);
    },
    refresh() {
      m.inFlight.set(inFlight.size);
      let streams = 0;
      for (const r of inFlight) if (r.stream) streams++;
      m.streamsInFlight.set(streams);
      m.credentials.reset();
      for (const p of served.providers()) {
        const standings = p.standings?.();
        if (!standings) continue;
        for (const { name, standing } of standings) {
          for (const state of ['ready', 'cooling', 'refused'] as const) m.credentials.set({ provider: p.id, credential: name, state }, state === standing ? 1 : 0);
        }
      }
    },
  };
}
