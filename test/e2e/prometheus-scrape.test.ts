/**
 * A real Prometheus server (Debian's `prometheus` package) scrapes the gateway's `/metrics` on the
 * gateway's port with its Bearer token, every second; its HTTP API is then asked for the request
 * count and the latency histogram, which must match the traffic sent through the SDKs.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, closedPort } from '../helpers/http.js';
import { type MetricsGateway, sendTraffic, startMetricsGateway, TRAFFIC } from '../helpers/metrics-traffic.js';

const PROMETHEUS = 'prometheus';
const installed = spawnSync(PROMETHEUS, ['--version']).error === undefined;
const TOKEN = 'scrape-token-0123456789abcdef';

/** Polls `until` (a Prometheus query) until it returns `wanted` or the wait is over; returns the last value. */
async function queryUntil(api: string, query: string, wanted: number, waitMs = 30_000): Promise<number | undefined> {
  const until = Date.now() + waitMs;
  let last: number | undefined;
  while (Date.now() < until) {
    const res = await call(`${api}/api/v1/query?query=${encodeURIComponent(query)}`, { method: 'GET' }).catch(() => undefined);
    const result = (res?.json as { data?: { result?: { value: [number, string] }[] } } | undefined)?.data?.result;
    last = result?.[0] ? Number(result[0].value[1]) : undefined;
    if (last === wanted) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  return last;
}

describe.skipIf(!installed)('a Prometheus server scraping the gateway', () => {
  let t: MetricsGateway;
  let prometheus: ChildProcess | undefined;
  let dir: string;
  let api: string;
  let log = '';

  beforeAll(async () => {
    t = await startMetricsGateway({ token: TOKEN });
    dir = mkdtempSync(path.join(tmpdir(), 'mgw-prometheus-'));
    const target = new URL(t.gw.url).host;
    writeFileSync(
      path.join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'scrape_configs:',
        '  - job_name: gateway',
        '    scrape_interval: 1s',
        '    authorization:',
        `      credentials: ${TOKEN}`,
        '    static_configs:',
        `      - targets: ['${target}']`,
        '',
      ].join('\n'),
    );
    const port = await closedPort();
    api = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout?.on('data', (c: Buffer) => (log += c.toString()));
    prometheus.stderr?.on('data', (c: Buffer) => (log += c.toString()));
    // Ready, and scraping the gateway successfully, before any traffic.
    expect(await queryUntil(api, 'up{job="gateway"}', 1), log).toBe(1);
    await sendTraffic(t);
  }, 60_000);

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((r) => prometheus!.once('exit', r));
      prometheus.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (prometheus.exitCode === null) prometheus.kill('SIGKILL');
    }
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['answered model requests', 'sum(model_gateway_requests_total{status="200"})', TRAFFIC.ok],
    ['the refusal', 'sum(model_gateway_requests_total{status="429",error_kind="rate_limit"})', TRAFFIC.refused],
    ['latency observations', 'sum(gen_ai_client_operation_duration_seconds_count)', TRAFFIC.ok],
    ['the histogram\'s last bucket holds them all', 'sum(gen_ai_client_operation_duration_seconds_bucket{le="+Inf"})', TRAFFIC.ok],
    ['retries', 'sum(model_gateway_upstream_retries_total)', TRAFFIC.retries.openai],
    ['fallbacks', 'sum(model_gateway_fallbacks_total)', TRAFFIC.fallbacks.down],
  ])('%s: %s', async (_what, query, expected) => {
    expect(await queryUntil(api, query, expected), log).toBe(expected);
  }, 40_000);

  it('every query of the Grafana dashboard in docs/ is one Prometheus accepts', async () => {
    const dashboard = JSON.parse(readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
    const queries = dashboard.panels.flatMap((p) => p.targets.map((t) => ({ title: p.title, expr: t.expr.replaceAll('$__rate_interval', '1m').replaceAll('$job', '.*') })));
    expect(queries.length).toBeGreaterThan(10);
    for (const { title, expr } of queries) {
      const res = await call(`${api}/api/v1/query?query=${encodeURIComponent(expr)}`, { method: 'GET' });
      expect(res.status, `${title}: ${res.text}`).toBe(200);
    }
  }, 40_000);

  it('a latency quantile comes out of the histogram', async () => {
    await queryUntil(api, 'sum(gen_ai_client_operation_duration_seconds_count)', TRAFFIC.ok);
    const res = await call(
      `${api}/api/v1/query?query=${encodeURIComponent('histogram_quantile(0.5, sum by (le) (gen_ai_client_operation_duration_seconds_bucket))')}`,
      { method: 'GET' },
    );
    const value = Number((res.json as { data: { result: { value: [number, string] }[] } }).data.result[0]!.value[1]);
    // Requests to a loopback upstream take well under the largest bucket's bound.
    expect(value).toBeGreaterThan(0);
    expect(value).toBeLessThan(81.92);
  }, 40_000);
});

if (!installed) describe.skip('a Prometheus server scraping the gateway: prometheus is not installed (Debian: apt-get install prometheus)', () => {});
