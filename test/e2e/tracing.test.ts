/**
 * OpenTelemetry traces: the real gateway, with tracing on, sends SDK traffic to a fake upstream and
 * its spans over OTLP/HTTP to a collector stand-in, in protobuf and in JSON. Checked span by span:
 * a native, a translated, a retried and a streamed request, the caller's `traceparent` continued,
 * each attempt's `traceparent` sent upstream, content only when asked for, and sampling.
 */
import type { ServerResponse } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import { startTracer } from '#src/tracing/tracer.js';
import { type OtlpProtocol, tracingSettings } from '#src/tracing/settings.js';
import type { Tracer } from '#src/tracing/types.js';
import { CANNED_TEXT, responseJson } from '../helpers/canned.js';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { type CollectedSpan, type Collector, startCollector } from '../helpers/otlp-collector.js';
import { GATEWAY_KEY, startGateway, waitForLines, type TestGateway } from '../helpers/start-gateway.js';

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

interface Setup {
  readonly upstream: FakeUpstream;
  readonly collector: Collector;
  readonly gw: TestGateway;
  readonly tracer: Tracer;
}

async function setUp(tracing: NonNullable<WrittenConfig['tracing']>, protocol: OtlpProtocol): Promise<Setup> {
  const upstream = await startFakeUpstream();
  const collector = await startCollector();
  const written: WrittenConfig = {
    providers: {
      openai: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-o', retries: 2 },
      anthropic: { type: 'anthropic', baseUrl: upstream.url, apiKey: 'sk-a' },
    },
    models: { 'gpt-test': { provider: 'openai', upstreamModel: 'gpt-upstream' }, 'claude-test': { provider: 'anthropic', upstreamModel: 'claude-upstream' } },
    keyGroups: { dev: { keys: [GATEWAY_KEY] } },
    tracing: { otlpEndpoint: collector.url, protocol, ...tracing },
  };
  const settings = tracingSettings(
    { headers: tracing.headers ?? {}, captureContent: tracing.captureContent ?? false, sampleRatio: tracing.sampleRatio, otlpEndpoint: collector.url, protocol },
    {},
  );
  const tracer = await startTracer(settings!, '0.0.0-test');
  const gw = await startGateway(written, { tracer });
  return { upstream, collector, gw, tracer };
}

async function tearDown(s: Setup | undefined): Promise<void> {
  await s?.gw.close();
  await s?.tracer.shutdown();
  await s?.collector.close();
  await s?.upstream.close();
}

const hi = [{ role: 'user' as const, content: 'hi' }];
const fail500 = (_req: unknown, res: ServerResponse) => sendJson(res, 500, { error: { message: 'failed with 500', type: 'server_error' } }, { 'retry-after-ms': '10' });

/** The request's own span and its attempts' spans, in the order they started. */
function requestSpans(spans: readonly CollectedSpan[], root: CollectedSpan): CollectedSpan[] {
  return spans.filter((s) => s.parentSpanId === root.spanId && s.traceId === root.traceId).sort((a, b) => Number(a.attributes['model_gateway.attempt']) - Number(b.attributes['model_gateway.attempt']));
}

const traceparentOf = (headers: Record<string, unknown>) => String(headers.traceparent ?? '');
const openaiAt = (url: string) => new OpenAI({ apiKey: GATEWAY_KEY, baseURL: `${url}/v1`, maxRetries: 0 });
async function drain(stream: Promise<AsyncIterable<unknown>>): Promise<void> {
  for await (const _ of await stream) {
    // read to the end
  }
}

describe.each(['http/protobuf', 'http/json'] as const)('traces over OTLP %s', (protocol) => {
  let s: Setup;
  let roots: Record<'native' | 'translated' | 'retried' | 'streamed', CollectedSpan>;
  let upstreamTraceparents: string[];

  beforeAll(async () => {
    s = await setUp({}, protocol);
    const openai = new OpenAI({ apiKey: GATEWAY_KEY, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey: GATEWAY_KEY, baseURL: s.gw.url, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'gpt-test', messages: hi }, { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });
    await anthropic.messages.create({ model: 'gpt-test', max_tokens: 16, messages: hi });
    s.upstream.once(fail500);
    await openai.chat.completions.create({ model: 'gpt-test', messages: hi });
    const stream = await openai.chat.completions.create({ model: 'gpt-test', messages: hi, stream: true, stream_options: { include_usage: true } });
    for await (const _ of stream) {
      // read to the end
    }
    await waitForLines(s.gw, 4);
    upstreamTraceparents = s.upstream.received.map((r) => traceparentOf(r.headers));
    // Stopping flushes the spans not sent yet.
    await s.tracer.shutdown();
    const all = s.collector.spans.filter((x) => x.kind === SERVER);
    const find = (what: string, test: (x: CollectedSpan) => boolean) => {
      const found = all.filter(test);
      if (found.length !== 1) throw new Error(`expected one ${what} span, got ${found.length}: ${JSON.stringify(all.map((x) => x.attributes))}`);
      return found[0]!;
    };
    roots = {
      native: find('native', (x) => x.traceId === CALLER_TRACE),
      translated: find('translated', (x) => x.attributes['model_gateway.route'] === 'translated'),
      retried: find('retried', (x) => x.attributes['model_gateway.retries'] === 1),
      streamed: find('streamed', (x) => x.attributes['gen_ai.request.stream'] === true),
    };
  }, 30_000);
  afterAll(() => tearDown(s));

  it(`the exports were ${protocol}, with the service named`, () => {
    expect(s.collector.contentTypes.length).toBeGreaterThan(0);
    for (const t of s.collector.contentTypes) expect(t).toBe(protocol === 'http/json' ? 'application/json' : 'application/x-protobuf');
    expect(roots.native.resource['service.name']).toBe('model-gateway');
  });

  it('one span per request, one child per attempt: nothing else', () => {
    expect(s.collector.spans.filter((x) => x.kind === SERVER)).toHaveLength(4);
    expect(s.collector.spans.filter((x) => x.kind === CLIENT)).toHaveLength(5);
  });

  it("native: the caller's traceparent continued, GenAI attributes on the request's span", () => {
    const root = roots.native;
    expect(root.parentSpanId).toBe(CALLER_SPAN);
    expect(root.name).toBe('chat gpt-test');
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.response.model': 'gpt-upstream',
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.usage.cache_read.input_tokens': 4,
      'http.response.status_code': 200,
      'model_gateway.protocol': 'chat',
      'model_gateway.upstream_protocol': 'chat',
      'model_gateway.route': 'native',
      'model_gateway.attempts': 1,
      'model_gateway.retries': 0,
      'model_gateway.fallbacks': 0,
      'model_gateway.key_group': 'dev',
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(root.attributes['error.type']).toBeUndefined();
    const [attempt, ...more] = requestSpans(s.collector.spans, root);
    expect(more).toHaveLength(0);
    expect(attempt).toMatchObject({ name: 'chat gpt-upstream', kind: CLIENT, traceId: CALLER_TRACE });
    expect(attempt!.attributes).toMatchObject({ 'gen_ai.request.model': 'gpt-upstream', 'model_gateway.provider': 'openai', 'http.response.status_code': 200 });
    // The upstream request carried the attempt's own traceparent, in the caller's trace.
    expect(upstreamTraceparents[0]).toBe(`00-${CALLER_TRACE}-${attempt!.spanId}-01`);
  });

  it('translated: the translation pair named', () => {
    expect(roots.translated.attributes).toMatchObject({
      'model_gateway.protocol': 'messages',
      'model_gateway.route': 'translated',
      'model_gateway.translation': `messages->${roots.translated.attributes['model_gateway.upstream_protocol']}`,
      'gen_ai.request.model': 'gpt-test',
      // As the caller's protocol (Messages) says it.
      'gen_ai.response.finish_reasons': ['end_turn'],
    });
    expect(roots.translated.parentSpanId).toBe('');
    expect(requestSpans(s.collector.spans, roots.translated)).toHaveLength(1);
  });

  it('retried: two attempts, the first failed with its status and kind, each with its own traceparent upstream', () => {
    const root = roots.retried;
    expect(root.attributes).toMatchObject({ 'model_gateway.attempts': 2, 'model_gateway.retries': 1, 'http.response.status_code': 200 });
    const [first, second] = requestSpans(s.collector.spans, root);
    expect(first!.status.code).toBe(ERROR);
    expect(first!.attributes).toMatchObject({ 'model_gateway.attempt': 1, 'http.response.status_code': 500, 'error.type': 'upstream_error' });
    expect(second!.status.code).not.toBe(ERROR);
    expect(second!.attributes).toMatchObject({ 'model_gateway.attempt': 2, 'http.response.status_code': 200 });
    expect(upstreamTraceparents.slice(2, 4)).toEqual([`00-${root.traceId}-${first!.spanId}-01`, `00-${root.traceId}-${second!.spanId}-01`]);
  });

  it('streamed: usage from the stream, and the time to the first chunk', () => {
    const a = roots.streamed.attributes;
    expect(a).toMatchObject({ 'gen_ai.request.stream': true, 'gen_ai.usage.output_tokens': 3, 'gen_ai.response.finish_reasons': ['stop'] });
    expect(a['gen_ai.response.time_to_first_chunk']).toBeGreaterThan(0);
    expect(requestSpans(s.collector.spans, roots.streamed)).toHaveLength(1);
  });

  it('no content without captureContent', () => {
    for (const x of s.collector.spans) {
      expect(Object.keys(x.attributes).filter((k) => k.endsWith('.body'))).toEqual([]);
      expect(JSON.stringify(x.attributes)).not.toContain(CANNED_TEXT);
    }
  });
});

describe('content, when asked for', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp({ captureContent: true }, 'http/json');
    const openai = new OpenAI({ apiKey: GATEWAY_KEY, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: `question ${'x'.repeat(20_000)}` }] });
    await waitForLines(s.gw, 1);
    await s.tracer.shutdown();
  });
  afterAll(() => tearDown(s));

  it('the request and the response on the request span, cut', () => {
    const root = s.collector.spans.find((x) => x.kind === SERVER)!;
    const request = String(root.attributes['model_gateway.request.body']);
    expect(request).toContain('"content":"question xxx');
    expect(Buffer.byteLength(request)).toBeLessThanOrEqual(8 * 1024);
    expect(String(root.attributes['model_gateway.response.body'])).toContain(CANNED_TEXT);
  });
});

describe('finish reasons, as the response to each caller protocol states them', () => {
  let s: Setup;
  let roots: CollectedSpan[];
  /** Each request carries a trace id of its own, so its span is found by it. */
  const traceOf = (i: number) => `${'0'.repeat(30)}${String(i + 1).padStart(2, '0')}`;
  const incomplete = (_req: unknown, res: ServerResponse) =>
    sendJson(res, 200, { ...responseJson('gpt-upstream', 'incomplete'), incomplete_details: { reason: 'max_output_tokens' } });
  const CASES: readonly { what: string; send: (url: string, traceparent: string) => Promise<unknown>; before?: (u: FakeUpstream) => void; reasons: string[] }[] = [
    { what: 'Responses, native, whole', send: (url, tp) => openaiAt(url).responses.create({ model: 'gpt-test', input: 'hi' }, { headers: { traceparent: tp } }), reasons: ['completed'] },
    { what: 'Responses, native, streamed', send: (url, tp) => drain(openaiAt(url).responses.create({ model: 'gpt-test', input: 'hi', stream: true }, { headers: { traceparent: tp } })), reasons: ['completed'] },
    {
      what: 'Responses, native, cut at its output limit',
      before: (u) => u.once(incomplete),
      send: (url, tp) => openaiAt(url).responses.create({ model: 'gpt-test', input: 'hi' }, { headers: { traceparent: tp } }),
      reasons: ['max_output_tokens'],
    },
    {
      what: 'Responses, native, whole, its keys in another order',
      before: (u) =>
        u.once((_req: unknown, res: ServerResponse) => {
          const { status, output, ...rest } = responseJson('gpt-upstream', 'completed');
          // The items first, each with a status of its own, then the answer's.
          sendJson(res, 200, { output, status, ...rest });
        }),
      send: (url, tp) => openaiAt(url).responses.create({ model: 'gpt-test', input: 'hi' }, { headers: { traceparent: tp } }),
      reasons: ['completed'],
    },
    { what: 'Responses, translated from Messages, whole', send: (url, tp) => openaiAt(url).responses.create({ model: 'claude-test', input: 'hi' }, { headers: { traceparent: tp } }), reasons: ['completed'] },
    {
      what: 'Responses, translated from Messages, streamed',
      send: (url, tp) => drain(openaiAt(url).responses.create({ model: 'claude-test', input: 'hi', stream: true }, { headers: { traceparent: tp } })),
      reasons: ['completed'],
    },
    {
      what: 'Gemini, translated from Messages',
      send: (url, tp) =>
        fetch(`${url}/v1beta/models/claude-test:generateContent`, {
          method: 'POST',
          headers: { 'x-goog-api-key': GATEWAY_KEY, 'content-type': 'application/json', traceparent: tp },
          body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
        }).then((r) => r.text()),
      reasons: ['STOP'],
    },
  ];

  beforeAll(async () => {
    s = await setUp({}, 'http/json');
    for (const [i, c] of CASES.entries()) {
      c.before?.(s.upstream);
      await c.send(s.gw.url, `00-${traceOf(i)}-${CALLER_SPAN}-01`);
    }
    await waitForLines(s.gw, CASES.length);
    await s.tracer.shutdown();
    roots = CASES.map((_c, i) => s.collector.spans.find((x) => x.kind === SERVER && x.traceId === traceOf(i))!);
  }, 30_000);
  afterAll(() => tearDown(s));

  it.each(CASES.map((c, i) => [c.what, i, c.reasons] as const))('%s', (_what, i, reasons) => {
    expect(roots[i]!.attributes['http.response.status_code']).toBe(200);
    expect(roots[i]!.attributes['gen_ai.response.finish_reasons']).toEqual(reasons);
  });
});

describe('sampling', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp({ sampleRatio: 0 }, 'http/json');
    const openai = new OpenAI({ apiKey: GATEWAY_KEY, baseURL: `${s.gw.url}/v1`, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'gpt-test', messages: hi });
    await openai.chat.completions.create({ model: 'gpt-test', messages: hi }, { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` } });
    await waitForLines(s.gw, 2);
    await s.tracer.shutdown();
  });
  afterAll(() => tearDown(s));

  it('sampleRatio 0 records no trace of its own, yet the upstream still gets an unsampled traceparent', () => {
    expect(s.collector.spans.filter((x) => x.traceId !== CALLER_TRACE)).toEqual([]);
    expect(traceparentOf(s.upstream.received[0]!.headers)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
  });

  it("a caller's sampled traceparent is followed all the same", () => {
    const mine = s.collector.spans.filter((x) => x.traceId === CALLER_TRACE);
    expect(mine.map((x) => x.kind).sort()).toEqual([SERVER, CLIENT]);
  });
});
