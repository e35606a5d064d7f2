/**
 * The gateway's metrics, in a prom-client registry of its own (never the library's global one, so
 * two gateways in one process, as in the tests, keep theirs apart). Names follow the OpenTelemetry
 * GenAI semantic conventions in Prometheus form where they exist (`gen_ai.client.operation.duration`
 * → `gen_ai_client_operation_duration_seconds`); the gateway's own start with `model_gateway_`.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import type { MetricLabel } from '../config/types.js';
import { optionalLabelNames } from './labels.js';
import { fastCounter, fastHistogram } from './series.js';

/** The GenAI conventions' advised buckets for operation durations, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
/** The conventions' advised buckets for time to the first chunk, in seconds. */
const FIRST_CHUNK_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** The conventions' advised buckets for token counts. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

const GEN_AI = ['gen_ai_system', 'gen_ai_operation_name', 'gen_ai_request_model', 'gen_ai_response_model'] as const;

export type MetricSet = ReturnType<typeof createMetricSet>;

export function createMetricSet(labels: readonly MetricLabel[]) {
  const registry = new Registry();
  const registers = [registry];
  const optional = optionalLabelNames(labels);
  // Updated by every request: the fast kind (series.ts). The rest change only when scraped or rarely.
  const counter = (d: { name: string; help: string; labelNames: string[] }) => fastCounter(registry, d);
  const histogram = (d: { name: string; help: string; labelNames: string[]; buckets: number[] }) => fastHistogram(registry, d);
  const metricSet = {
    registry,
    requests: counter({
      name: 'model_gateway_requests_total',
      help: 'Requests served, by caller protocol, upstream protocol, provider, route (native, translated, none), status and error kind.',
      labelNames: ['protocol', 'upstream_protocol', 'provider', 'route', 'status', 'error_kind', ...optional],
    }),
    duration: histogram({
      name: 'gen_ai_client_operation_duration_seconds',
      help: 'Duration of model requests, from their arrival to the end of the response (retries and fallbacks included).',
      labelNames: [...GEN_AI, 'error_type', ...optional],
      buckets: DURATION_BUCKETS,
    }),
    firstChunk: histogram({
      name: 'gen_ai_client_operation_time_to_first_chunk_seconds',
      help: 'Time from the arrival of a streamed model request to the first chunk of its response sent to the caller.',
      labelNames: [...GEN_AI, ...optional],
      buckets: FIRST_CHUNK_BUCKETS,
    }),
    tokens: histogram({
      name: 'gen_ai_client_token_usage',
      help: 'Tokens used per model request, by type: input (cached ones included), output, cache_read and cache_write.',
      labelNames: [...GEN_AI, 'gen_ai_token_type', ...optional],
      buckets: TOKEN_BUCKETS,
    }),
    cacheTokens: counter({
      name: 'model_gateway_cache_tokens_total',
      help: 'Input tokens read from (cache="read") and written to (cache="write") the providers\' prompt caches.',
      labelNames: ['provider', 'cache'],
    }),
    cost: counter({
      name: 'model_gateway_cost_usd_total',
      help: 'What model requests cost, in US dollars, for models with a known price.',
      labelNames: ['provider', 'gen_ai_request_model', ...optional],
    }),
    unpriced: counter({
      name: 'model_gateway_unpriced_requests_total',
      help: 'Model requests whose model has no known price, so their cost is not counted.',
      labelNames: ['provider', 'gen_ai_request_model', ...optional],
    }),
    attempts: counter({
      name: 'model_gateway_upstream_attempts_total',
      help: 'Upstream requests sent, by provider (each retry and fallback is one).',
      labelNames: ['provider'],
    }),
    retries: counter({
      name: 'model_gateway_upstream_retries_total',
      help: 'Upstream requests that retried the route before them, by provider.',
      labelNames: ['provider'],
    }),
    fallbacks: counter({
      name: 'model_gateway_fallbacks_total',
      help: 'Moves to a fallback model after a route failed, by the provider of the route that failed.',
      labelNames: ['provider'],
    }),
    refusals: counter({
      name: 'model_gateway_limit_refusals_total',
      help: 'Requests refused at admission, by limit: "server" (maxConcurrentRequests) or a key group\'s requestsPerMinute, concurrentRequests or tokensPerMinute.',
      labelNames: ['limit', ...optional],
    }),
    budgetRefusals: new Counter({
      name: 'model_gateway_budget_refusals_total',
      help: 'Requests refused because their key group spent its budget.',
      labelNames: optional.includes('key_group') ? ['key_group'] : [],
      registers,
    }),
    storeUp: new Gauge({
      name: 'model_gateway_store_up',
      help: 'Whether a shared store (store="redis") is reachable: 1 yes, 0 no.',
      labelNames: ['store'],
      registers,
    }),
    inFlight: new Gauge({ name: 'model_gateway_requests_in_flight', help: 'Requests in progress.', registers }),
    streamsInFlight: new Gauge({ name: 'model_gateway_streams_in_flight', help: 'Streamed model requests in progress.', registers }),
    credentials: new Gauge({
      name: 'model_gateway_credential_state',
      help: 'Where each credential of a provider with several stands: 1 for its state (ready, cooling, refused), 0 for the others.',
      labelNames: ['provider', 'credential', 'state'],
      registers,
    }),
  };
  processMetrics(registers);
  return metricSet;
}

/**
 * The process's CPU, memory and start time under the names every exporter uses. prom-client's
 * default set is not used: its `nodejs_active_*_total` gauges break the naming rules promtool
 * checks, and its event-loop monitor would run a timer for the life of the process.
 */
function processMetrics(registers: Registry[]): void {
  const startedAt = Math.round(Date.now() / 1000 - process.uptime());
  new Counter({
    name: 'process_cpu_seconds_total',
    help: 'User and system CPU time of the process, in seconds.',
    registers,
    collect() {
      const { user, system } = process.cpuUsage();
      this.reset();
      this.inc((user + system) / 1e6);
    },
  });
  new Gauge({
    name: 'process_resident_memory_bytes',
    help: 'Resident memory of the process, in bytes.',
    registers,
    collect() {
      this.set(process.memoryUsage.rss());
    },
  });
  new Gauge({
    name: 'process_start_time_seconds',
    help: 'When the process started, in seconds since the Unix epoch.',
    registers,
    collect() {
      this.set(startedAt);
    },
  });
}
