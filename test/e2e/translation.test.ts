/**
 * Translation through the real pipeline: each caller protocol on providers
 * that speak another one, against fake upstreams that record what arrives.
 * (Per-scenario coverage of every pair is in test/conformance.)
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CANNED_TEXT, chatFrames, messageFrames } from '../helpers/canned.js';
import { sendJson, startFakeUpstream, writeSlowly, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import { GATEWAY_KEY, PROVIDER_ANTHROPIC_KEY, startGateway, waitForLines, type TestGateway } from '../helpers/start-gateway.js';

let upstream: FakeUpstream;
let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  // No retries: the error cases check how one upstream error is translated (retries have their own tests).
  gw = await startGateway({
    providers: {
      // Speaks only Chat, like Ollama or vLLM.
      local: { type: 'openai-compatible', baseUrl: `${upstream.url}/v1`, retries: 0 },
      // Speaks only Responses.
      responsesOnly: { type: 'openai-compatible', baseUrl: `${upstream.url}/v1`, protocols: ['responses'], retries: 0 },
      anthropic: { type: 'anthropic', baseUrl: upstream.url, apiKey: PROVIDER_ANTHROPIC_KEY, retries: 0 },
      openai: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-openai-provider-key-0000', retries: 0 },
    },
    models: {
      qwen: { provider: 'local', upstreamModel: 'qwen2.5-coder:7b' },
      'qwen-plain': { provider: 'local', features: ['tools', 'streaming'] },
      'resp-model': { provider: 'responsesOnly' },
      'claude-x': { provider: 'anthropic', upstreamModel: 'claude-upstream', maxOutputTokens: 2000 },
      'gpt-x': { provider: 'openai', upstreamModel: 'gpt-upstream' },
    },
    keyGroups: { dev: { keys: [GATEWAY_KEY] } },
  });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

const received = () => upstream.last().json as Record<string, unknown>;

describe('Messages callers', () => {
  it('reach a Chat-only model, non-streaming', async () => {
    const message = await anthropic.messages.create({
      model: 'qwen',
      max_tokens: 100,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.content[0]).toMatchObject({ type: 'text', text: CANNED_TEXT });
    expect(message.model).toBe('qwen');
    expect(message.stop_reason).toBe('end_turn');
    expect(upstream.last().url).toBe('/v1/chat/completions');
    expect(received()).toMatchObject({
      model: 'qwen2.5-coder:7b',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
      max_tokens: 100,
    });
    expect(upstream.last().headers['anthropic-version']).toBeUndefined();
  });

  it.each([
    ['before the upstream’s first event', ''],
    ['when the upstream’s first chunk, sent with its headers, translates to nothing', ': ping\n\n'],
  ])('get the stream’s headers as soon as the upstream sends them: %s', async (_name, firstChunk) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    upstream.once(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (firstChunk) res.write(firstChunk);
      else res.flushHeaders();
      // The events wait until the client has seen the headers: held back, this would never end.
      await released;
      for (const frame of chatFrames('qwen2.5-coder:7b', true)) res.write(frame);
      res.end();
    });
    const { status, text } = await call(`${gw.url}/v1/messages`, {
      headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwen', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      onHeaders: release,
    });
    expect(status).toBe(200);
    expect(text).toContain('event: message_start');
    expect(text).toContain('event: message_stop');
  });

  it('reach a Chat-only model, streaming, with usage', async () => {
    const message = await anthropic.messages.stream({ model: 'qwen', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    expect(message.content[0]).toMatchObject({ type: 'text', text: CANNED_TEXT });
    expect(message.usage.output_tokens).toBe(3);
    expect(received()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('reach an OpenAI model through the Responses API', async () => {
    const message = await anthropic.messages.create({ model: 'gpt-x', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: CANNED_TEXT });
    expect(upstream.last().url).toBe('/v1/responses');
    expect(received()).toMatchObject({ model: 'gpt-upstream', max_output_tokens: 50 });
  });

  it('go without reasoning to a model configured without it (Claude Code always asks for thinking)', async () => {
    const res = await call(`${gw.url}/v1/messages`, {
      headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'qwen-plain', max_tokens: 100, thinking: { type: 'adaptive' }, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-model-gateway-dropped']).toContain('reasoning (the model does not support it)');
    expect(received().reasoning_effort).toBeUndefined();
  });

  it('count tokens locally when the provider cannot', async () => {
    const res = await call(`${gw.url}/v1/messages/count_tokens`, {
      headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'qwen', messages: [{ role: 'user', content: 'x'.repeat(400) }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-model-gateway-token-estimate']).toBe('true');
    expect((res.json as { input_tokens: number }).input_tokens).toBe(115);
    expect(upstream.received).toHaveLength(0);
  });
});

describe('Chat callers', () => {
  it('reach Claude, non-streaming, with the model default for max_tokens', async () => {
    const completion = await openai.chat.completions.create({
      model: 'claude-x',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe(CANNED_TEXT);
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.model).toBe('claude-x');
    // Anthropic input excludes cache reads and writes; the Chat caller sees the total.
    expect(completion.usage).toMatchObject({ prompt_tokens: 17, completion_tokens: 3, total_tokens: 20 });
    expect(upstream.last().url).toBe('/v1/messages');
    expect(upstream.last().headers['anthropic-version']).toBe('2023-06-01');
    expect(upstream.last().headers['x-api-key']).toBe(PROVIDER_ANTHROPIC_KEY);
    expect(received()).toMatchObject({ model: 'claude-upstream', max_tokens: 2000, system: [{ type: 'text', text: 'Be brief.' }] });
  });

  it('cap max tokens at the model’s configured limit, and say so', async () => {
    const res = await call(`${gw.url}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}` },
      body: JSON.stringify({ model: 'claude-x', max_completion_tokens: 128_000, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(received()).toMatchObject({ max_tokens: 2000 });
    expect(res.headers['x-model-gateway-dropped']).toBe('max tokens capped to 2000');
  });

  it('reach Claude, streaming, usage chunk included', async () => {
    const final = await openai.chat.completions
      .stream({ model: 'claude-x', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe(CANNED_TEXT);
    expect(final.usage?.total_tokens).toBe(20);
  });

  it('reach a Responses-only provider', async () => {
    const completion = await openai.chat.completions.create({ model: 'resp-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]?.message.content).toBe(CANNED_TEXT);
    expect(upstream.last().url).toBe('/v1/responses');
  });
});

describe('Responses callers', () => {
  it('reach a Chat-only model, streaming', async () => {
    const response = await openai.responses.stream({ model: 'qwen', input: 'hi', instructions: 'Be brief.' }).finalResponse();
    expect(response.output_text).toBe(CANNED_TEXT);
    expect(response.model).toBe('qwen');
    expect(received()).toMatchObject({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }] });
  });

  it('reach Claude, non-streaming', async () => {
    const response = await openai.responses.create({ model: 'claude-x', input: 'hi' });
    expect(response.output_text).toBe(CANNED_TEXT);
    expect(response.usage).toMatchObject({ input_tokens: 17, output_tokens: 3, input_tokens_details: { cached_tokens: 5 } });
  });

  it('say what was dropped, in a header and the log', async () => {
    const before = gw.lines().length;
    const res = await call(`${gw.url}/v1/responses`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}` },
      body: JSON.stringify({ model: 'qwen', input: 'hi', tools: [{ type: 'web_search' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-model-gateway-translated']).toBe('responses->chat');
    expect(res.headers['x-model-gateway-dropped']).toMatch(/web_search/);
    expect((received() as { tools?: unknown }).tools).toBeUndefined();
    const line = (await waitForLines(gw, before + 1)).at(-1);
    expect(line).toMatch(/qwen → local\/qwen2.5-coder:7b \[responses→chat\] .* dropped [^+]*web_search[^+]*$/);
  });

  it.each([
    ['conversation', { conversation: 'conv_1' }],
    ['conversation', { conversation: { id: 'conv_1' } }],
    ['background', { background: true }],
  ])('refuse %s on a translated model, saying why, and send nothing upstream', async (param, fields) => {
    const before = upstream.received.length;
    const res = await call(`${gw.url}/v1/responses`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}` },
      body: JSON.stringify({ model: 'claude-x', input: 'hi', ...fields }),
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: { param, message: expect.stringMatching(/whole conversation/) } });
    expect(upstream.received.length).toBe(before);
  });

  it('serves background: false and conversation: null on a translated model', async () => {
    const res = await call(`${gw.url}/v1/responses`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}` },
      body: JSON.stringify({ model: 'claude-x', input: 'hi', background: false, conversation: null }),
    });
    expect(res.status).toBe(200);
  });
});

describe('errors across protocols', () => {
  it('an upstream 429 reaches a Messages caller as rate_limit_error with its retry hint', async () => {
    upstream.once((_req, res) =>
      sendJson(res, 429, { error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limit_exceeded' } }, { 'retry-after': '3' }),
    );
    const res = await call(`${gw.url}/v1/messages`, {
      headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'qwen', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('3');
    expect(res.json).toMatchObject({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } });
  });

  it('Anthropic overloaded (529) reaches a Chat caller as 503', async () => {
    upstream.once((_req, res) => sendJson(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
    const res = await call(`${gw.url}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}` },
      body: JSON.stringify({ model: 'claude-x', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(503);
    expect(res.json).toMatchObject({ error: { type: 'service_unavailable_error', message: 'Overloaded' } });
  });

  it('a Claude stream dying mid-way ends a Chat caller’s stream with an error chunk', async () => {
    upstream.once(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      await writeSlowly(res, messageFrames('claude-upstream').slice(0, 5), 5);
      res.destroy();
    });
    const stream = await openai.chat.completions.create({ model: 'claude-x', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    const err = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    expect(text).toBe('Hello from');
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(String((err as Error).message)).toMatch(/broke off/);
  });
});
