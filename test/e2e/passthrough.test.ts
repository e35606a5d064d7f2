/**
 * Native passthrough through the official SDKs: each endpoint, streaming and
 * not, against a fake provider that records what it receives.
 */
import Anthropic from '@anthropic-ai/sdk';
import AnthropicV0 from 'anthropic-sdk-0';
import OpenAI from 'openai';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { CANNED_TEXT, cannedReply, chatFrames } from '../helpers/canned.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import {
  GATEWAY_KEY,
  PROVIDER_ANTHROPIC_KEY,
  PROVIDER_OPENAI_KEY,
  startGateway,
  testConfig,
  waitForLines,
  type TestGateway,
} from '../helpers/start-gateway.js';

let upstream: FakeUpstream;
let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;
let anthropicV0: AnthropicV0;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gw = await startGateway(testConfig(upstream.url));
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
  anthropicV0 = new AnthropicV0({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

/** What every forwarded request must look like upstream, whatever the protocol. */
function expectCleanUpstreamRequest(style: 'openai' | 'anthropic') {
  const got = upstream.last();
  const headers = got.headers;
  if (style === 'openai') {
    expect(headers.authorization).toBe(`Bearer ${PROVIDER_OPENAI_KEY}`);
    expect(headers['x-api-key']).toBeUndefined();
  } else {
    expect(headers['x-api-key']).toBe(PROVIDER_ANTHROPIC_KEY);
    expect(headers.authorization).toBeUndefined();
  }
  expect(JSON.stringify(headers)).not.toContain(GATEWAY_KEY);
  expect(got.body.toString()).not.toContain(GATEWAY_KEY);
  // SDK telemetry and other client headers stay at the gateway.
  expect(headers['x-stainless-lang']).toBeUndefined();
  expect(headers['content-type']).toBe('application/json');
  return got;
}

describe('Chat Completions', () => {
  it('forwards a non-streaming request with only the model renamed', async () => {
    const completion = await openai.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
      // A field the gateway has never heard of must reach the provider untouched.
      ...({ future_field: { nested: [1, 2] } } as object),
    });
    expect(completion.choices[0]?.message.content).toBe(CANNED_TEXT);
    const got = expectCleanUpstreamRequest('openai');
    expect(got.url).toBe('/v1/chat/completions');
    expect(got.json).toEqual({ model: 'gpt-upstream', messages: [{ role: 'user', content: 'hi' }], future_field: { nested: [1, 2] } });
    expect(got.headers['user-agent']).toMatch(/^OpenAI\/JS/);
  });

  it('streams chunks through, usage chunk included', async () => {
    const stream = openai.chat.completions.stream({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe(CANNED_TEXT);
    expect(final.usage?.total_tokens).toBe(14);
    expect(expectCleanUpstreamRequest('openai').json).toMatchObject({ model: 'gpt-upstream', stream: true });
  });

  it('reaches an openai-compatible provider without credentials', async () => {
    await openai.chat.completions.create({ model: 'local-chat', messages: [{ role: 'user', content: 'hi' }] });
    const got = upstream.last();
    expect(got.headers.authorization).toBeUndefined();
    expect((got.json as { model: string }).model).toBe('qwen2.5-coder:7b');
  });
});

describe('the request stream', () => {
  // readBody pauses a body read whole before its 'end', so Node's teardown of the request runs after the
  // upstream call is written; the handler must end it once the response has closed, or it never would.
  it('ends after the upstream call is made, once the response has closed, on a connection kept for the next', async () => {
    const requests: IncomingMessage[] = [];
    const onRequest = (req: IncomingMessage) => requests.push(req);
    gw.gateway.server.on('request', onRequest);
    const endedWhenSent: boolean[] = [];
    upstream.always((got, res) => {
      endedWhenSent.push(requests.at(-1)!.readableEnded);
      cannedReply(got, res);
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (const stream of [true, false, true]) {
        const text = await new Promise<string>((resolve, reject) => {
          const req = httpRequest(`${gw.url}/v1/chat/completions`, {
            method: 'POST',
            agent,
            headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
          });
          req.on('response', (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += String(c)));
            res.on('end', () => resolve(body));
          });
          req.on('error', reject);
          req.end(JSON.stringify({ model: 'gpt-test', stream, messages: [{ role: 'user', content: 'hi' }] }));
        });
        expect(text).toContain(stream ? 'data: [DONE]' : CANNED_TEXT);
      }
      await vi.waitFor(() => expect(requests.map((r) => [r.readableEnded, r.destroyed])).toEqual([[true, true], [true, true], [true, true]]));
      expect(endedWhenSent).toEqual([false, false, false]);
      expect(new Set(requests.map((r) => r.socket)).size).toBe(1);
    } finally {
      agent.destroy();
      gw.gateway.server.off('request', onRequest);
    }
  });
});

describe('stream headers', () => {
  it('reach the client as soon as the upstream sends them, before its first event', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    upstream.once(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      // The first event waits until the client has seen the headers: held back, this would never end.
      await released;
      for (const frame of chatFrames('gpt-upstream', true)) res.write(frame);
      res.end();
    });
    const { status, text } = await call(`${gw.url}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      onHeaders: release,
    });
    expect(status).toBe(200);
    expect(text).toContain(CANNED_TEXT.split(' ')[0]);
    expect(text).toContain('[DONE]');
  });
});

describe('Responses', () => {
  it('forwards a non-streaming request', async () => {
    const response = await openai.responses.create({ model: 'gpt-test', input: 'hi', store: false });
    expect(response.output_text).toBe(CANNED_TEXT);
    const got = expectCleanUpstreamRequest('openai');
    expect(got.url).toBe('/v1/responses');
    expect(got.json).toEqual({ model: 'gpt-upstream', input: 'hi', store: false });
  });

  it('streams events through in order', async () => {
    const stream = openai.responses.stream({ model: 'gpt-test', input: 'hi' });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    expect(final.output_text).toBe(CANNED_TEXT);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types.filter((t) => t === 'response.output_text.delta')).toHaveLength(3);
  });
});

describe('Messages', () => {
  it('forwards a 1.x SDK request (Bearer, 2026-10-21) non-streaming', async () => {
    const message = await anthropic.messages.create({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: CANNED_TEXT });
    const got = expectCleanUpstreamRequest('anthropic');
    expect(got.url).toBe('/v1/messages');
    expect(got.headers['anthropic-version']).toBe('2026-10-21');
    expect(got.json).toEqual({ model: 'claude-upstream', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
  });

  it('streams a 0.x SDK request (x-api-key, 2023-06-01) with betas', async () => {
    const stream = anthropicV0.beta.messages.stream({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
      betas: ['interleaved-thinking-2025-05-14'],
    });
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text', text: CANNED_TEXT });
    expect(final.usage.output_tokens).toBe(3);
    const got = expectCleanUpstreamRequest('anthropic');
    expect(got.url).toBe('/v1/messages');
    expect(got.headers['anthropic-version']).toBe('2023-06-01');
    expect(got.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
  });

  it('sends a glob-matched model under its own name', async () => {
    await anthropic.messages.create({ model: 'claude-opus-5-5', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect((upstream.last().json as { model: string }).model).toBe('claude-opus-5-5');
  });

  it('counts tokens', async () => {
    const count = await anthropic.messages.countTokens({ model: 'claude-test', messages: [{ role: 'user', content: 'hi' }] });
    expect(count.input_tokens).toBe(42);
    expect(expectCleanUpstreamRequest('anthropic').url).toBe('/v1/messages/count_tokens');
  });
});

describe('the model an answer names', () => {
  // Claude Code sends signed thinking back only from answers that name the model it asked for.
  it.each([
    ['whole', async () => (await anthropic.messages.create({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })).model],
    [
      'streamed (message_start)',
      async () => (await anthropic.messages.stream({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).finalMessage()).model,
    ],
  ])('is the one a Messages caller asked for, not the upstream name: %s', async (_name, ask) => {
    expect(await ask()).toBe('claude-test');
    // The upstream was asked for, and answered with, its own name.
    expect((upstream.last().json as { model: string }).model).toBe('claude-upstream');
  });

  it('is left as the upstream gave it for OpenAI-protocol callers, whose clients do not compare it', async () => {
    expect((await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] })).model).toBe('gpt-upstream');
  });
});

describe('the log', () => {
  it('prints one line per request with model, provider, key group and tokens, and no secret', async () => {
    const before = gw.lines().length;
    await anthropic.messages.create({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    await openai.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true }).then(async (s) => {
      for await (const _ of s);
    });
    const lines = (await waitForLines(gw, before + 2)).slice(before);
    expect(lines[0]).toMatch(/ 200 POST \/v1\/messages claude-test → anthropic\/claude-upstream dev:[0-9a-f]{8} \d+ms in 17 \(5 cached\) out 3 no price$/);
    expect(lines[1]).toMatch(/ 200 POST \/v1\/chat\/completions gpt-test → openai\/gpt-upstream dev:[0-9a-f]{8} \d+ms ttfb \d+ms$/);
    const all = gw.output.join('');
    for (const secret of [GATEWAY_KEY, PROVIDER_OPENAI_KEY, PROVIDER_ANTHROPIC_KEY]) expect(all).not.toContain(secret);
  });
});
