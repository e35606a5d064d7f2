/**
 * A gateway with metrics on (served as `serve` serves them), its fake upstream, and a known mix of
 * traffic sent through the official SDKs: native, translated, streamed, retried, fallen back and
 * refused by a limit. What each metric must say after it is in `TRAFFIC`.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { parseConfig } from '#src/config/parse.js';
import type { WrittenConfig } from '#src/config/schema.js';
import { createMetrics, type Metrics } from '#src/metrics/metrics.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { closedPort } from './http.js';
import { GATEWAY_KEY, startGateway, waitForLines, type TestGateway } from './start-gateway.js';

export const LIMITED_KEY = 'gw-limited-metrics-key-0123';

export interface MetricsGateway {
  readonly gw: TestGateway;
  readonly upstream: FakeUpstream;
  readonly metrics: Metrics;
  /** Where the metrics are served. */
  readonly metricsUrl: string;
  close(): Promise<void>;
}

export async function startMetricsGateway(metrics: NonNullable<WrittenConfig['metrics']>): Promise<MetricsGateway> {
  const upstream = await startFakeUpstream();
  const deadPort = await closedPort();
  const written: WrittenConfig = {
    providers: {
      openai: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-o', retries: 2 },
      anthropic: { type: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-a', retries: 2 },
      down: { type: 'openai', baseUrl: `http://127.0.0.1:${deadPort}/v1`, apiKey: 'sk-d', retries: 0 },
    },
    models: {
      'gpt-test': { provider: 'openai', upstreamModel: 'gpt-upstream' },
      'claude-test': { provider: 'anthropic', upstreamModel: 'claude-upstream' },
      'down-model': { provider: 'down', fallbacks: ['claude-test'] },
    },
    keyGroups: {
      dev: { keys: [{ name: 'alice', key: GATEWAY_KEY }], models: ['gpt-test', 'claude-test', 'down-model'] },
      limited: { keys: [LIMITED_KEY], models: ['gpt-test'], limits: { requestsPerMinute: 1 } },
    },
    metrics,
  };
  const config = parseConfig(written, { env: {} });
  let gw: TestGateway | undefined;
  const m = createMetrics(config.metrics!, {
    config: () => gw!.gateway.state.config,
    providers: () => gw!.gateway.state.providers.values(),
    allowedHosts: [],
  });
  gw = await startGateway(written, { observers: [m.observer], ...(m.mount ? { mounts: [m.mount] } : {}) });
  const metricsUrl = await m.listen(gw.url);
  return {
    gw,
    upstream,
    metrics: m,
    metricsUrl,
    async close() {
      await m.close();
      await gw!.close();
      await upstream.close();
    },
  };
}

/** What the traffic of `sendTraffic` adds up to. */
export const TRAFFIC = {
  /** Model requests answered 200: native, streamed, translated, retried, fallen back, the limited group's first. */
  ok: 6,
  /** The limited group's second request, refused at admission. */
  refused: 1,
  /** Upstream requests by provider: the retried one twice; the fallback once on `down`, once on `anthropic`. */
  attempts: { openai: 6, down: 1, anthropic: 1 },
  retries: { openai: 1 },
  fallbacks: { down: 1 },
  streams: 1,
} as const;

const fail500 = (_req: unknown, res: Parameters<typeof sendJson>[0]) =>
  sendJson(res, 500, { error: { message: 'failed with 500', type: 'server_error' } }, { 'retry-after-ms': '10' });

/** Sends the traffic and waits until every request was logged (the record reaches the observers as the line is written). */
export async function sendTraffic(t: MetricsGateway): Promise<void> {
  const before = t.gw.lines().length;
  const openai = new OpenAI({ apiKey: GATEWAY_KEY, baseURL: `${t.gw.url}/v1`, maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey: GATEWAY_KEY, baseURL: t.gw.url, maxRetries: 0 });
  const hi = [{ role: 'user' as const, content: 'hi' }];
  // Native.
  await openai.chat.completions.create({ model: 'gpt-test', messages: hi });
  // Streamed, native.
  const stream = await openai.chat.completions.create({ model: 'gpt-test', messages: hi, stream: true, stream_options: { include_usage: true } });
  for await (const _ of stream) {
    // read to the end
  }
  // Translated: a Messages caller to an OpenAI provider.
  await anthropic.messages.create({ model: 'gpt-test', max_tokens: 16, messages: hi });
  // Retried: a 500, then the canned answer.
  t.upstream.once(fail500);
  await openai.chat.completions.create({ model: 'gpt-test', messages: hi });
  // Fallen back: `down` refuses connections, `claude-test` answers (translated to Messages).
  await openai.chat.completions.create({ model: 'down-model', messages: hi });
  // Refused by the limited group's requestsPerMinute after its first request.
  const limited = new OpenAI({ apiKey: LIMITED_KEY, baseURL: `${t.gw.url}/v1`, maxRetries: 0 });
  await limited.chat.completions.create({ model: 'gpt-test', messages: hi });
  const refused = await limited.chat.completions.create({ model: 'gpt-test', messages: hi }).then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(refused instanceof OpenAI.APIError) || refused.status !== 429) throw new Error(`expected a 429, got ${String(refused)}`);
  await waitForLines(t.gw, before + TRAFFIC.ok + TRAFFIC.refused);
}

/** The samples of one metric whose labels include `labels`, summed; 0 when none. */
export function sampleSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = new Map([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1]!, x[2]!]));
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) sum += Number(m[3]);
  }
  return sum;
}
