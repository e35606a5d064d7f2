/**
 * The metrics' own parts, scraped as Prometheus would: the hooks other branches report through,
 * the credential states read when scraped, and series that only a scrape sets.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/parse.js';
import { newRecord } from '../log/record.js';
import type { Provider } from '../providers/types.js';
import { createMetrics } from './metrics.js';

const config = (labels: ('keyGroup' | 'key' | 'model')[] = []) =>
  parseConfig(
    {
      providers: { openai: { type: 'openai', apiKey: 'sk-test' } },
      models: { 'gpt-4.1': { provider: 'openai' } },
      keyGroups: { dev: { keys: ['dev-key-0123456789'] } },
      metrics: { port: 0, labels },
    },
    { env: {} },
  );

const lines = (text: string) => text.split('\n').filter((l) => !l.startsWith('#') && l !== '');

describe('metrics hooks', () => {
  it.each([
    ['without keyGroup listed: one total', [], 'model_gateway_budget_refusals_total 2'],
    ['with keyGroup listed: by group', ['keyGroup' as const], 'model_gateway_budget_refusals_total{key_group="dev"} 2'],
  ])('budget refusals %s', async (_what, labels, line) => {
    const c = config(labels);
    const m = createMetrics(c.metrics!, { config: () => c, providers: () => [], allowedHosts: [] });
    m.hooks.budgetRefused('dev');
    m.hooks.budgetRefused('dev');
    expect(lines((await m.scrape()).text)).toContain(line);
  });

  it('store health is a gauge per store', async () => {
    const c = config();
    const m = createMetrics(c.metrics!, { config: () => c, providers: () => [], allowedHosts: [] });
    m.hooks.storeHealth('redis', 1);
    m.hooks.storeHealth('redis', 0);
    expect(lines((await m.scrape()).text)).toContain('model_gateway_store_up{store="redis"} 0');
  });
});

describe('when scraped', () => {
  it('credential states of providers with several, one 1 and two 0s each', async () => {
    const c = config();
    const standings = [
      { name: 'a', standing: 'refused' as const },
      { name: 'b', standing: 'ready' as const },
    ];
    const provider = { id: 'claude', standings: () => standings } as unknown as Provider;
    const single = { id: 'openai' } as unknown as Provider;
    const m = createMetrics(c.metrics!, { config: () => c, providers: () => [provider, single], allowedHosts: [] });
    const text = lines((await m.scrape()).text).filter((l) => l.startsWith('model_gateway_credential_state'));
    expect(text.sort()).toEqual(
      [
        'model_gateway_credential_state{provider="claude",credential="a",state="ready"} 0',
        'model_gateway_credential_state{provider="claude",credential="a",state="cooling"} 0',
        'model_gateway_credential_state{provider="claude",credential="a",state="refused"} 1',
        'model_gateway_credential_state{provider="claude",credential="b",state="ready"} 1',
        'model_gateway_credential_state{provider="claude",credential="b",state="cooling"} 0',
        'model_gateway_credential_state{provider="claude",credential="b",state="refused"} 0',
      ].sort(),
    );
  });

  it('in flight: requests started and not ended, streams among them once known', async () => {
    const c = config();
    const m = createMetrics(c.metrics!, { config: () => c, providers: () => [], allowedHosts: [] });
    const a = newRecord('a', 0, 0, 'POST', '/v1/chat/completions');
    const b = Object.assign(newRecord('b', 0, 0, 'POST', '/v1/chat/completions'), { stream: true });
    m.observer.requestStarted!(a);
    m.observer.requestStarted!(b);
    let text = lines((await m.scrape()).text);
    expect(text).toContain('model_gateway_requests_in_flight 2');
    expect(text).toContain('model_gateway_streams_in_flight 1');
    m.observer.requestEnded(b);
    text = lines((await m.scrape()).text);
    expect(text).toContain('model_gateway_requests_in_flight 1');
    expect(text).toContain('model_gateway_streams_in_flight 0');
  });

  it('a histogram: cumulative buckets, +Inf, sum and count, in its unit', async () => {
    const c = config();
    const m = createMetrics(c.metrics!, { config: () => c, providers: () => [], allowedHosts: [] });
    for (const durationMs of [5, 30, 30, 100_000]) {
      const r = Object.assign(newRecord('r', 0, 0, 'POST', '/v1/chat/completions'), { provider: 'openai', model: 'gpt-4.1', upstreamModel: 'gpt-4.1', protocol: 'chat', upstreamProtocol: 'chat', operation: 'create', status: 200, durationMs });
      m.observer.requestEnded(r);
    }
    const text = lines((await m.scrape()).text).filter((l) => l.startsWith('gen_ai_client_operation_duration_seconds'));
    const series = 'gen_ai_system="openai",gen_ai_operation_name="chat",gen_ai_request_model="gpt-4.1",gen_ai_response_model="gpt-4.1",error_type=""';
    expect(text).toContain(`gen_ai_client_operation_duration_seconds_bucket{${series},le="0.01"} 1`);
    expect(text).toContain(`gen_ai_client_operation_duration_seconds_bucket{${series},le="0.04"} 3`);
    expect(text).toContain(`gen_ai_client_operation_duration_seconds_bucket{${series},le="81.92"} 3`);
    expect(text).toContain(`gen_ai_client_operation_duration_seconds_bucket{${series},le="+Inf"} 4`);
    expect(text).toContain(`gen_ai_client_operation_duration_seconds_sum{${series}} 100.065`);
    expect(text).toContain(`gen_ai_client_operation_duration_seconds_count{${series}} 4`);
  });

  it('model labels follow the config serving: a reload that names a model exactly labels it by name from then on', async () => {
    const withGlob = parseConfig(
      { providers: { openai: { type: 'openai', apiKey: 'sk-test' } }, models: { 'gpt-*': { provider: 'openai' } }, keyGroups: { dev: { keys: ['dev-key-0123456789'] } }, metrics: { port: 0 } },
      { env: {} },
    );
    let serving = withGlob;
    const m = createMetrics(withGlob.metrics!, { config: () => serving, providers: () => [], allowedHosts: [] });
    const request = () =>
      Object.assign(newRecord('r', 0, 0, 'POST', '/v1/chat/completions'), { provider: 'openai', model: 'gpt-4.1', upstreamModel: 'gpt-4.1', protocol: 'chat', upstreamProtocol: 'chat', operation: 'create', status: 200, durationMs: 5 });
    m.observer.requestEnded(request());
    serving = config();
    m.observer.requestEnded(request());
    const counts = lines((await m.scrape()).text).filter((l) => l.startsWith('gen_ai_client_operation_duration_seconds_count'));
    expect(counts.sort()).toEqual(
      [
        'gen_ai_client_operation_duration_seconds_count{gen_ai_system="openai",gen_ai_operation_name="chat",gen_ai_request_model="gpt-*",gen_ai_response_model="gpt-*",error_type=""} 1',
        'gen_ai_client_operation_duration_seconds_count{gen_ai_system="openai",gen_ai_operation_name="chat",gen_ai_request_model="gpt-4.1",gen_ai_response_model="gpt-4.1",error_type=""} 1',
      ].sort(),
    );
  });
});
