/**
 * Turns each request's record into metrics when its response closes. The work per request is a
 * few additions to series found by a string key (series.ts); the rest happens when Prometheus
 * scrapes: the gauges of what is in flight and of the credentials are set then.
 */
import type { Config, MetricLabel } from '../config/types.js';
import type { RequestRecord } from '../log/record.js';
import type { RequestObserver } from '../pipeline/context.js';
import type { Provider } from '../providers/types.js';
import { modelLabels, optionalKeySuffix } from './labels.js';
import type { MetricSet } from './registry.js';
import { type HistogramSeries, observeIn, SEP } from './series.js';
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

/** The token series of one set of GenAI labels, found once and kept: a request observes into them directly. */
interface TokenSeries {
  readonly input: HistogramSeries;
  readonly output: HistogramSeries;
  readonly cacheRead: HistogramSeries;
  readonly cacheWrite: HistogramSeries;
}

/** Label sets remembered with their series; past it the memo starts again (the series themselves stay). */
const MEMO_LIMIT = 4096;

export function metricsObserver(m: MetricSet, labels: readonly MetricLabel[], served: Served): MetricsObserver {
  const named = labels.includes('model');
  const inFlight = new Set<RequestRecord>();
  const tokenSeries = new Map<string, TokenSeries>();
  const tokensOf = (base: string, optional: string): TokenSeries => {
    const key = base + optional;
    let t = tokenSeries.get(key);
    if (t === undefined) {
      if (tokenSeries.size >= MEMO_LIMIT) tokenSeries.clear();
      t = {
        input: m.tokens.series(`${base}${SEP}input${optional}`),
        output: m.tokens.series(`${base}${SEP}output${optional}`),
        cacheRead: m.tokens.series(`${base}${SEP}cache_read${optional}`),
        cacheWrite: m.tokens.series(`${base}${SEP}cache_write${optional}`),
      };
      tokenSeries.set(key, t);
    }
    return t;
  };

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

  const genAi = (record: RequestRecord, errorKind: string, optional: string) => {
    const config = served.config();
    const provider = record.provider!;
    const [requested, sent] = modelLabels(config, record, named);
    const base = genAiSystem(config.providers.get(provider)?.type) + SEP + genAiOperation(record.operation) + SEP + requested + SEP + sent;
    m.duration.observe(base + SEP + errorKind + optional, (record.durationMs ?? 0) / 1000);
    if (record.stream && record.ttfbMs !== undefined) m.firstChunk.observe(base + optional, record.ttfbMs / 1000);
    const usage = record.usage;
    if (usage) {
      const t = tokensOf(base, optional);
      if (usage.inputTokens !== undefined) observeIn(t.input, usage.inputTokens);
      if (usage.outputTokens !== undefined) observeIn(t.output, usage.outputTokens);
      if (usage.cachedTokens) {
        observeIn(t.cacheRead, usage.cachedTokens);
        m.cacheTokens.add(`${provider}${SEP}read`, usage.cachedTokens);
      }
      if (usage.cacheWriteTokens) {
        observeIn(t.cacheWrite, usage.cacheWriteTokens);
        m.cacheTokens.add(`${provider}${SEP}write`, usage.cacheWriteTokens);
      }
    }
    const spent = record.cost;
    if (spent) {
      if (typeof spent.usd === 'number') m.cost.add(provider + SEP + requested + optional, spent.usd);
      else m.unpriced.add(provider + SEP + requested + optional, 1);
    }
  };

  return {
    requestStarted(record) {
      inFlight.add(record);
    },
    requestEnded(record) {
      inFlight.delete(record);
      const optional = optionalKeySuffix(labels, record, SEP);
      const protocol = record.protocol ?? '';
      const upstreamProtocol = record.upstreamProtocol ?? '';
      const route = upstreamProtocol === '' ? 'none' : upstreamProtocol === protocol ? 'native' : 'translated';
      const errorKind = record.errorKind ?? (record.aborted ? 'client_left' : record.error !== undefined ? 'stream_error' : '');
      const status = record.status === undefined ? '' : String(record.status);
      m.requests.add(protocol + SEP + upstreamProtocol + SEP + (record.provider ?? '') + SEP + route + SEP + status + SEP + errorKind + optional, 1);
      if (record.refusedBy !== undefined) m.refusals.add(record.refusedBy + optional, 1);
      if (record.provider === undefined) return;
      genAi(record, errorKind, optional);
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
