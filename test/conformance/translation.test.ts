/**
 * The conformance suite: every scenario (scenarios.ts), through every
 * translation pair, streaming and not, end to end: the caller's official SDK
 * → the gateway → a fake upstream speaking the other protocol, which answers
 * the scenario in its own wire format. For each run it checks
 *   1. what the upstream received still says what the caller asked (decoded back to IR),
 *   2. what the caller's SDK parsed says what the upstream answered (decoded back to IR),
 *   3. the stream, folded by the SDK, equals the non-streaming answer.
 * Known losses are listed per pair in `lossy` with the reason.
 */
import type { ServerResponse } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '#src/config/schema.js';
import type { Protocol } from '#src/protocols/types.js';
import type * as Ir from '#src/translate/ir.js';
import { codecs } from '#src/translate/codecs.js';
import { responseToEvents } from '#src/translate/common/ir-stream.js';
import type { Json } from '#src/translate/types.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { scenarios, type Scenario } from './scenarios.js';

const PROTOCOLS: readonly Protocol[] = ['chat', 'responses', 'messages'];
const PAIRS = PROTOCOLS.flatMap((caller) => PROTOCOLS.filter((u) => u !== caller).map((upstream) => [caller, upstream] as const));

function ctxFor(caller: Protocol, upstream: Protocol): Ir.TranslateContext {
  let n = 0;
  return {
    caller,
    upstream,
    requestedModel: 'm',
    upstreamModel: 'upstream-model',
    upstreamDialect: upstream === 'messages' ? 'anthropic' : 'openai',
    now: () => 1_700_000_000_000,
    newId: (prefix) => `${prefix}${++n}`,
    warnings: [],
    toolNames: new Map(),
  };
}

/** The fake upstream's behaviour: answer `scenario` in protocol `upstream`, streaming if asked. */
function answerWith(upstream: Protocol, response: Ir.Response) {
  return (req: { json: unknown }, res: ServerResponse) => {
    const body = req.json as Json;
    const ctx = ctxFor(upstream, upstream);
    const codec = codecs[upstream];
    if (body.stream === true) {
      const encoder = codec.encodeStream({ ...ctx, requestedModel: String(body.model) }, body);
      const text = responseToEvents(response).map((e) => encoder.push(e)).join('') + encoder.end();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(text);
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(codec.encodeResponse(response, { ...ctx, requestedModel: String(body.model) }, body)));
    }
  };
}

/** Calls the gateway with the caller protocol's official SDK; returns what the SDK parsed, as plain JSON. */
async function callWithSdk(caller: Protocol, url: string, body: Json, stream: boolean): Promise<Json> {
  const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
  const anthropic = new Anthropic({ baseURL: url, apiKey: GATEWAY_KEY, maxRetries: 0 });
  const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as Json;
  const b = { ...body } as never;
  switch (caller) {
    case 'chat':
      return plain(
        stream
          ? await openai.chat.completions.stream({ ...(body as object), stream: true, stream_options: { include_usage: true } } as never).finalChatCompletion()
          : await openai.chat.completions.create({ ...(body as object), stream: false } as never),
      );
    case 'responses':
      return plain(
        stream
          ? await openai.responses.stream({ ...(body as object), stream: true } as never).finalResponse()
          : await openai.responses.create({ ...(body as object), stream: false } as never),
      );
    case 'messages':
      return plain(stream ? await anthropic.messages.stream(b).finalMessage() : await anthropic.messages.create({ ...(body as object), stream: false } as never));
  }
}

// ------------------------------------------------------------------ normalisation

type Part = Record<string, unknown>;

/** The comparable essence of a response: merged text, tool calls with parsed arguments, reasoning text, stop, usage. */
function essence(res: Ir.Response, opts: { reasoning: boolean }) {
  const parts: Part[] = [];
  for (const p of res.content) {
    if (p.type === 'text') {
      const last = parts.at(-1);
      if (last?.type === 'text') last.text = String(last.text) + p.text;
      else parts.push({ type: 'text', text: p.text });
    } else if (p.type === 'tool_call') {
      parts.push({ type: 'tool_call', id: p.id, name: p.name, arguments: JSON.parse(p.arguments || '{}') as unknown });
    } else if (p.type === 'reasoning') {
      if (opts.reasoning) parts.push({ type: 'reasoning', text: p.text || (p.summary ?? []).join('') });
    } else {
      parts.push({ type: p.type, text: p.text });
    }
  }
  return {
    parts,
    stopReason: res.stopReason,
    usage: { input: res.usage.inputTokens, output: res.usage.outputTokens, cacheRead: res.usage.cacheReadTokens ?? 0 },
  };
}

/** The comparable essence of a request, as the upstream received it. */
function requestEssence(req: Ir.Request, opts: { isError: boolean }) {
  const content = (m: Ir.Message) =>
    m.content.map((p) => {
      switch (p.type) {
        case 'text':
          return { type: 'text', text: p.text };
        case 'image':
          return { type: 'image', source: p.source.kind };
        case 'tool_call':
          return { type: 'tool_call', id: p.id, name: p.name, arguments: JSON.parse(p.arguments) as unknown };
        case 'tool_result':
          return {
            type: 'tool_result',
            callId: p.callId,
            text: p.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join(''),
            ...(opts.isError && p.isError ? { isError: true } : {}),
          };
        default:
          return { type: p.type };
      }
    });
  return {
    system: req.system.map((s) => s.text).join('\n\n'),
    messages: req.messages.map((m) => ({ role: m.role, content: content(m) })),
    tools: req.tools.map((t) => ({ name: t.name, parameters: t.parameters })),
    responseFormat: req.responseFormat?.type,
    reasoning: req.reasoning !== undefined,
  };
}

/** Where a pair cannot carry something both ends of the scenario use. */
function lossy(caller: Protocol, upstream: Protocol) {
  return {
    // Only Messages marks a tool result as an error; Chat and Responses have no such flag (dropped with a warning).
    isError: caller === 'messages' && upstream === 'messages',
    // An Anthropic caller can only be given thinking that carries an Anthropic signature; reasoning from an
    // OpenAI upstream is dropped (never turned into text). Chat callers get it as reasoning_content only when
    // the SDK keeps that non-standard field, which the stream helper does not.
    reasoning: (stream: boolean) =>
      caller === 'responses' || (caller === 'messages' && upstream === 'messages') || (caller === 'chat' && !stream),
  };
}

// ------------------------------------------------------------------ the suite

let upstreamServer: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstreamServer = await startFakeUpstream();
  // No retries: the error cases check how one upstream error is translated (retries have their own tests).
  const config: WrittenConfig = {
    providers: {
      chat: { type: 'openai-compatible', baseUrl: `${upstreamServer.url}/v1`, retries: 0 },
      responses: { type: 'openai-compatible', baseUrl: `${upstreamServer.url}/v1`, protocols: ['responses'], retries: 0 },
      messages: { type: 'anthropic', baseUrl: upstreamServer.url, apiKey: 'sk-ant-test', retries: 0 },
    },
    models: {
      'on-chat': { provider: 'chat', upstreamModel: 'upstream-model' },
      'on-responses': { provider: 'responses', upstreamModel: 'upstream-model' },
      'on-messages': { provider: 'messages', upstreamModel: 'upstream-model' },
    },
    keyGroups: { dev: { keys: [GATEWAY_KEY] } },
  };
  gw = await startGateway(config);
});
afterAll(async () => {
  await gw.close();
  await upstreamServer.close();
});

describe.each(PAIRS)('%s -> %s', (caller, upstream) => {
  const loss = lossy(caller, upstream);

  describe.each(scenarios)('$name', (scenario: Scenario) => {
    const results: Partial<Record<'stream' | 'json', ReturnType<typeof essence>>> = {};

    it.each([false, true])('stream: %s', async (stream) => {
      const ctx = ctxFor(caller, caller);
      const body = codecs[caller].encodeRequest({ ...scenario.request, model: `on-${upstream}`, stream }, { ...ctx, upstreamModel: `on-${upstream}` });
      upstreamServer.once(answerWith(upstream, scenario.response));
      const parsed = await callWithSdk(caller, gw.url, body, stream);

      // 1. The upstream received the scenario's request.
      const got = upstreamServer.last();
      const receivedIr = codecs[upstream].decodeRequest(got.json as Json, ctxFor(upstream, upstream));
      expect(receivedIr.model).toBe('upstream-model');
      expect(requestEssence(receivedIr, { isError: loss.isError })).toEqual(requestEssence(scenario.request, { isError: loss.isError }));
      if (scenario.request.maxOutputTokens !== undefined) expect(receivedIr.maxOutputTokens).toBe(scenario.request.maxOutputTokens);

      // 2. The caller's SDK parsed the scenario's answer.
      const answerIr = codecs[caller].decodeResponse(parsed, ctxFor(caller, caller));
      const reasoning = loss.reasoning(stream);
      const actual = essence(answerIr, { reasoning });
      expect(actual).toEqual(essence(scenario.response, { reasoning }));
      expect(answerIr.model).toBe(`on-${upstream}`);
      // Reasoning the caller cannot carry is dropped, never shown as text.
      const allText = answerIr.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
      for (const p of scenario.response.content) if (p.type === 'reasoning') expect(allText).not.toContain(p.text);

      // 3. Stream and non-stream agree.
      results[stream ? 'stream' : 'json'] = essence(answerIr, { reasoning: loss.reasoning(false) && loss.reasoning(true) });
      if (results.stream && results.json) expect(results.stream).toEqual(results.json);
    });
  });

  it('an upstream error before the answer reaches the caller in its own shape', async () => {
    const ctx = ctxFor(caller, caller);
    const body = codecs[caller].encodeRequest({ ...scenarios[0]!.request, model: `on-${upstream}` }, { ...ctx, upstreamModel: `on-${upstream}` });
    upstreamServer.once((_req, res) => {
      const errorBody =
        upstream === 'messages'
          ? { type: 'error', error: { type: 'rate_limit_error', message: 'Too many requests, slow down' } }
          : { error: { message: 'Too many requests, slow down', type: 'rate_limit_error', code: 'rate_limit_exceeded', param: null } };
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(JSON.stringify(errorBody));
    });
    const err = await callWithSdk(caller, gw.url, body, true).catch((e: unknown) => e);
    const Sdk = caller === 'messages' ? Anthropic : OpenAI;
    expect(err).toBeInstanceOf(Sdk.RateLimitError);
    expect((err as Error).message).toContain('Too many requests, slow down');
  });

  it('an upstream dying mid-stream ends the caller’s stream with an error', async () => {
    const ctx = ctxFor(caller, caller);
    const body = codecs[caller].encodeRequest({ ...scenarios[0]!.request, model: `on-${upstream}` }, { ...ctx, upstreamModel: `on-${upstream}` });
    upstreamServer.once((req, res) => {
      const encoder = codecs[upstream].encodeStream({ ...ctxFor(upstream, upstream), requestedModel: 'upstream-model' }, req.json as Json);
      const events = responseToEvents(scenarios[0]!.response).slice(0, 3);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(events.map((e) => encoder.push(e)).join(''));
      setTimeout(() => res.destroy(), 20);
    });
    const outcome = await callWithSdk(caller, gw.url, body, true).then(
      (v) => ({ ok: true as const, value: v }),
      (e: unknown) => ({ ok: false as const, error: e }),
    );
    // The SDK either throws, or (Responses 6.x helper) resolves with a failed response; never a silent success.
    if (outcome.ok) expect(outcome.value.status).toBe('failed');
    else expect(String((outcome.error as Error).message ?? outcome.error)).toMatch(/broke off/);
  });
});
