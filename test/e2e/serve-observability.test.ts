/**
 * Metrics and traces as `serve` and `check` set them up: `--metrics-port` on loopback, the banner's
 * lines, tracing turned on by the standard OTEL_* variable alone, and the last spans sent when serve
 * stops on a signal.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '#src/cli/main.js';
import type { WrittenConfig } from '#src/config/schema.js';
import type { CliIo } from '#src/cli/io.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import { sampleSum } from '../helpers/metrics-traffic.js';
import { type Collector, startCollector } from '../helpers/otlp-collector.js';
import { GATEWAY_KEY, testConfig } from '../helpers/start-gateway.js';
import { waitFor } from '../helpers/wait-for.js';

let upstream: FakeUpstream;
let collector: Collector;
beforeAll(async () => {
  upstream = await startFakeUpstream();
  collector = await startCollector();
});
afterAll(async () => {
  await collector.close();
  await upstream.close();
});

function harness(env: Record<string, string | undefined>) {
  let out = '';
  let stop: (s: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => {
    stop = resolve;
  });
  const cwd = mkdtempSync(join(tmpdir(), 'mgw-obs-'));
  const io: CliIo = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (out += s) }, env, cwd, stopSignal: () => stopped };
  return { io, out: () => out, stop: () => stop('SIGTERM') };
}

describe('serve --metrics-port, with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  it('serves metrics on their own loopback port, traces each request, and sends the last spans when stopped', async () => {
    const h = harness({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    writeFileSync(join(h.io.cwd, 'gateway.config.json'), JSON.stringify(testConfig(upstream.url)));
    const exit = run(['serve', '--port', '0', '--metrics-port', '0', '--no-color', '--no-inspector'], h.io);
    const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(h.out())?.[1], 'the banner');
    const metricsUrl = /metrics\s+(http:\/\/127\.0\.0\.1:\d+\/metrics) \(Prometheus text\)/.exec(h.out())?.[1];
    expect(metricsUrl, h.out()).toBeDefined();
    expect(h.out()).toContain(`traces    ${collector.url}/v1/traces (OTLP http/json)`);

    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    await waitFor(() => (/200 POST \/v1\/chat\/completions gpt-test/.test(h.out()) ? true : undefined), 'the log line');
    const scraped = await call(metricsUrl!, { method: 'GET' });
    expect(sampleSum(scraped.text, 'model_gateway_requests_total', { protocol: 'chat', status: '200' })).toBe(1);
    // Not on the gateway's port: that would need a token.
    expect((await call(`${url}/metrics`, { method: 'GET', headers: { authorization: `Bearer ${GATEWAY_KEY}` } })).status).not.toBe(200);

    // The batch of spans has not gone yet: stopping sends it.
    h.stop();
    expect(await exit).toBe(0);
    // The model request and its attempt; the refused GET /metrics is a request too.
    expect(collector.spans.map((s) => s.name).sort()).toEqual(['GET', 'chat gpt-test', 'chat gpt-upstream']);
  });
});

describe('check', () => {
  it.each<[string, Partial<WrittenConfig>, RegExp]>([
    ['off', {}, /metrics\s+off/],
    ['on the gateway port', { metrics: { token: 'a-token-of-twenty-chars' } }, /metrics\s+\/metrics on the gateway's port, behind a Bearer token; extra labels: none/],
    ['on a port of their own', { metrics: { port: 9464, labels: ['keyGroup'] } }, /metrics\s+http:\/\/127\.0\.0\.1:9464\/metrics; extra labels: keyGroup/],
  ])('shows the metrics %s', async (_what, extra, line) => {
    const h = harness({});
    writeFileSync(join(h.io.cwd, 'gateway.config.json'), JSON.stringify(testConfig(upstream.url, extra)));
    expect(await run(['check', '--no-color'], h.io)).toBe(0);
    expect(h.out()).toMatch(line);
    expect(h.out()).not.toContain('a-token-of-twenty-chars');
  });

  it.each<[string, Partial<WrittenConfig>, Record<string, string>, RegExp]>([
    ['off', {}, {}, /traces\s+off/],
    ['from the variables', {}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://user:secret@collector:4318' }, /traces\s+http:\/\/collector:4318\/v1\/traces \(OTLP http\/protobuf, sampling 1\)/],
    ['from the config', { tracing: { otlpEndpoint: 'http://c:4318', protocol: 'http/json', sampleRatio: 0.1, captureContent: true } }, {}, /traces\s+http:\/\/c:4318\/v1\/traces \(OTLP http\/json, sampling 0\.1, with content\)/],
  ])('shows the traces %s', async (_what, extra, env, line) => {
    const h = harness(env);
    writeFileSync(join(h.io.cwd, 'gateway.config.json'), JSON.stringify(testConfig(upstream.url, extra)));
    expect(await run(['check', '--no-color'], h.io)).toBe(0);
    expect(h.out()).toMatch(line);
    expect(h.out()).not.toContain('secret');
  });
});
