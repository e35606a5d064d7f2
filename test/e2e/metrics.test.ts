/**
 * Prometheus metrics: a known mix of SDK traffic through the real gateway to a fake upstream, then
 * `/metrics` read back and checked value by value, and by `promtool check metrics` (Debian's
 * `prometheus` package) for the text format and the naming rules. Served on a listener of its own
 * and on the gateway's port behind a token.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/http.js';
import { GATEWAY_KEY } from '../helpers/start-gateway.js';
import { type MetricsGateway, sampleSum, sendTraffic, startMetricsGateway, TRAFFIC } from '../helpers/metrics-traffic.js';

const promtool = spawnSync('promtool', ['--version']).error === undefined ? 'promtool' : undefined;
const TOKEN = 'metrics-token-0123456789abcdef';

describe('metrics on a listener of their own', () => {
  let t: MetricsGateway;
  let text: string;
  beforeAll(async () => {
    t = await startMetricsGateway({ port: 0, labels: ['keyGroup', 'key'] });
    await sendTraffic(t);
    const res = await call(t.metricsUrl, { method: 'GET' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    text = res.text;
  });
  afterAll(() => t.close());

  it('is on loopback, apart from the gateway', () => {
    expect(t.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(t.metricsUrl.startsWith(t.gw.url)).toBe(false);
  });

  const cases: [string, string, Record<string, string>, number][] = [
    ['answered requests', 'model_gateway_requests_total', { status: '200' }, TRAFFIC.ok],
    ['native ones', 'model_gateway_requests_total', { route: 'native', status: '200' }, 4],
    ['translated ones (Messages → Chat, and the fallback Chat → Messages)', 'model_gateway_requests_total', { route: 'translated' }, 2],
    ['the refusal, with its kind', 'model_gateway_requests_total', { status: '429', error_kind: 'rate_limit', key_group: 'limited' }, TRAFFIC.refused],
    ['requests by key name', 'model_gateway_requests_total', { key_group: 'dev', key: 'alice' }, 5],
    ['the refusal by limit', 'model_gateway_limit_refusals_total', { limit: 'requestsPerMinute', key_group: 'limited' }, 1],
    ['attempts on openai', 'model_gateway_upstream_attempts_total', { provider: 'openai' }, TRAFFIC.attempts.openai],
    ['attempts on down', 'model_gateway_upstream_attempts_total', { provider: 'down' }, TRAFFIC.attempts.down],
    ['attempts on anthropic', 'model_gateway_upstream_attempts_total', { provider: 'anthropic' }, TRAFFIC.attempts.anthropic],
    ['retries', 'model_gateway_upstream_retries_total', { provider: 'openai' }, TRAFFIC.retries.openai],
    ['fallbacks', 'model_gateway_fallbacks_total', { provider: 'down' }, TRAFFIC.fallbacks.down],
    ['operation durations of routed requests', 'gen_ai_client_operation_duration_seconds_count', {}, TRAFFIC.ok],
    ['durations by system and models', 'gen_ai_client_operation_duration_seconds_count', { gen_ai_system: 'openai', gen_ai_operation_name: 'chat', gen_ai_request_model: 'gpt-test', gen_ai_response_model: 'gpt-upstream' }, 5],
    ['the fallback served by anthropic, named as asked and as sent', 'gen_ai_client_operation_duration_seconds_count', { gen_ai_system: 'anthropic', gen_ai_request_model: 'down-model', gen_ai_response_model: 'claude-upstream' }, 1],
    ['time to first chunk, streams only', 'gen_ai_client_operation_time_to_first_chunk_seconds_count', {}, TRAFFIC.streams],
    // The canned Chat answers use 11 input tokens, the Responses answer (the translated Messages request) 12.
    ['input tokens of the dev group on openai: native, streamed, translated, retried', 'gen_ai_client_token_usage_sum', { gen_ai_token_type: 'input', gen_ai_system: 'openai', key_group: 'dev' }, 11 + 11 + 12 + 11],
    ['token counts observed per request and type', 'gen_ai_client_token_usage_count', { gen_ai_token_type: 'output' }, TRAFFIC.ok],
    ['cache reads of the whole Chat answers (4 each: native, retried, limited)', 'model_gateway_cache_tokens_total', { provider: 'openai', cache: 'read' }, 4 * 3],
    ['nothing in flight after the traffic', 'model_gateway_requests_in_flight', {}, 0],
    ['the process metrics', 'process_cpu_seconds_total', {}, -1],
  ];
  it.each(cases)('%s', (_what, name, labels, expected) => {
    if (expected === -1) expect(sampleSum(text, name, labels)).toBeGreaterThan(0);
    else expect(sampleSum(text, name, labels)).toBe(expected);
  });

  it('keys and sessions are labels only as configured: no key id, no session', () => {
    expect(text).not.toContain(GATEWAY_KEY);
    expect(text).not.toMatch(/session/);
  });

  it.skipIf(!promtool)('passes promtool check metrics', () => {
    const out = spawnSync(promtool!, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(out.stdout + out.stderr).toBe('');
    expect(out.status).toBe(0);
  });
  if (!promtool) it.skip('promtool check metrics: promtool is not installed (Debian: apt-get install prometheus)', () => {});

  it('the Grafana dashboard in docs/ names only metrics the gateway serves', () => {
    const dashboard = readFileSync(new URL('../../docs/grafana-dashboard.json', import.meta.url), 'utf8');
    const served = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const named = new Set([...dashboard.matchAll(/\b((?:gen_ai|model_gateway|process)_[a-z_]+?)(?:_bucket|_sum|_count)?\{/g)].map((m) => m[1]));
    expect(named.size).toBeGreaterThan(10);
    for (const name of named) expect(served.has(name!), name).toBe(true);
  });

  it('answers only GET /metrics', async () => {
    expect((await call(t.metricsUrl.replace(/\/metrics$/, '/other'), { method: 'GET' })).status).toBe(404);
    expect((await call(t.metricsUrl, { method: 'POST', body: '' })).status).toBe(405);
  });
});

describe('metrics on the gateway port', () => {
  let t: MetricsGateway;
  beforeAll(async () => {
    t = await startMetricsGateway({ token: TOKEN });
  });
  afterAll(() => t.close());

  it('are served at /metrics of the gateway', () => {
    expect(t.metricsUrl).toBe(`${t.gw.url}/metrics`);
  });

  it.each([
    ['no token', {}, 401],
    ['a gateway key', { authorization: `Bearer ${GATEWAY_KEY}` }, 401],
    ['a wrong token of the same length', { authorization: `Bearer ${'x'.repeat(TOKEN.length)}` }, 401],
    ['the token with a byte more', { authorization: `Bearer ${TOKEN}x` }, 401],
    ['the token', { authorization: `Bearer ${TOKEN}` }, 200],
  ])('%s: %s', async (_what, headers, status) => {
    const res = await call(t.metricsUrl, { method: 'GET', headers });
    expect(res.status).toBe(status);
    if (status === 200) expect(res.text).toContain('# TYPE model_gateway_requests_total counter');
    else expect(res.text).not.toContain('model_gateway');
  });

  it('count a request sent on the same port, the scrape itself not', async () => {
    const before = sampleSum((await call(t.metricsUrl, { method: 'GET', headers: { authorization: `Bearer ${TOKEN}` } })).text, 'model_gateway_requests_total');
    await call(`${t.gw.url}/health`, { method: 'GET' });
    const after = sampleSum((await call(t.metricsUrl, { method: 'GET', headers: { authorization: `Bearer ${TOKEN}` } })).text, 'model_gateway_requests_total');
    expect(after - before).toBe(1);
  });
});
