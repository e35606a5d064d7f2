/**
 * What the client sees when the provider misbehaves: unreachable, slow,
 * refusing the credential, failing, or dying mid-stream. And a client that
 * hangs up must close the upstream request at once.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chatFrames, messageFrames, responsesFrames } from '../helpers/canned.js';
import { sendJson, startFakeUpstream, writeSlowly, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call, closedPort } from '../helpers/http.js';
import { GATEWAY_KEY, PROVIDER_OPENAI_KEY, startGateway, testConfig, waitForLines, withoutRetries, type TestGateway } from '../helpers/start-gateway.js';

let upstream: FakeUpstream;
let gw: TestGateway;
let deadPort: number;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  deadPort = await closedPort();

  // No retries: these cases check how one failure reaches the client (retries.test.ts covers retrying).
  const base = withoutRetries(testConfig(upstream.url));
  gw = await startGateway({
    ...base,
    providers: {
      ...base.providers,
      slow: { type: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-x', timeouts: { headersMs: 300, idleMs: 300 }, retries: 0 },
      down: { type: 'anthropic', baseUrl: `http://127.0.0.1:${deadPort}`, apiKey: 'sk-x', retries: 0 },
    },
    models: { ...base.models, 'slow-model': { provider: 'slow' }, 'down-model': { provider: 'down' } },
  });
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

const openai = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
const anthropic = () => new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });
const chat = { model: 'gpt-test', messages: [{ role: 'user' as const, content: 'hi' }] };
const msg = { model: 'claude-test', max_tokens: 10, messages: [{ role: 'user' as const, content: 'hi' }] };

describe('transport failures', () => {
  it('an unreachable provider is 502 in the caller shape', async () => {
    const res = await call(`${gw.url}/v1/messages`, {
      headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ ...msg, model: 'down-model' }),
    });
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ type: 'error', error: { type: 'api_error', message: expect.stringMatching(/unreachable.*ECONNREFUSED/) } });
  });

  it('a provider that does not answer in time is 504', async () => {
    upstream.once(() => undefined); // never answers
    const res = await call(`${gw.url}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}` },
      body: JSON.stringify({ ...chat, model: 'slow-model' }),
    });
    expect(res.status).toBe(504);
    expect(res.json).toMatchObject({ error: { type: 'server_error', message: "Provider 'slow' did not answer within 0.3s." } });
  });
});

describe('upstream error answers', () => {
  it('a refused provider credential is 502 and says whose key is wrong', async () => {
    upstream.once((_req, res) => sendJson(res, 401, { error: { message: 'Incorrect API key provided: sk-pro***', type: 'invalid_request_error', code: 'invalid_api_key' } }));
    const err = await openai().chat.completions.create(chat).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    const apiErr = err as InstanceType<typeof OpenAI.APIError>;
    expect(apiErr.status).toBe(502);
    expect(apiErr.message).toMatch(/Provider 'openai' refused the gateway's credential \(HTTP 401\)\. Your gateway key was accepted/);
    expect(apiErr.headers?.get('x-should-retry')).toBe('false');
    expect(apiErr.message).not.toContain(`${PROVIDER_OPENAI_KEY.slice(0, 6)}***`);
  });

  it('a 500 keeps its status and message, in the caller shape', async () => {
    upstream.once((_req, res) => sendJson(res, 500, { type: 'error', error: { type: 'api_error', message: 'Internal server error' } }));
    const err = await anthropic().messages.create(msg).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.InternalServerError);
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(500);
    expect((err as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'api_error', message: 'Internal server error' } });
  });

  it('a 429 passes its retry hints through', async () => {
    upstream.once((_req, res) =>
      sendJson(res, 429, { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }, { 'retry-after': '7', 'x-ratelimit-remaining-requests': '0' }),
    );
    const res = await call(`${gw.url}/v1/chat/completions`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` }, body: JSON.stringify(chat) });
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.headers['x-ratelimit-remaining-requests']).toBe('0');
    // Passthrough: the provider's body as it sent it (see 'passthrough error bodies').
    expect(res.json).toEqual({ error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } });
  });

  it('Anthropic 529 overloaded stays 529 overloaded_error', async () => {
    upstream.once((_req, res) => sendJson(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
    const res = await call(`${gw.url}/v1/messages`, {
      headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(msg),
    });
    expect(res.status).toBe(529);
    expect(res.json).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  it('a 400 about the payload passes through with its param', async () => {
    upstream.once((_req, res) => sendJson(res, 400, { error: { message: "Invalid value for 'temperature'", type: 'invalid_request_error', param: 'temperature', code: 'invalid_value' } }));
    const res = await call(`${gw.url}/v1/responses`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` }, body: JSON.stringify({ model: 'gpt-test', input: 'x' }) });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: { message: "Invalid value for 'temperature'", type: 'invalid_request_error', param: 'temperature', code: 'invalid_value' } });
  });

  it('a non-JSON error body still gets a clear message', async () => {
    upstream.once((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('<html>bad gateway</html>');
    });
    const res = await call(`${gw.url}/v1/chat/completions`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` }, body: JSON.stringify(chat) });
    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json).toMatchObject({ error: { message: "Provider 'openai' answered HTTP 503.", type: 'service_unavailable_error' } });
  });
});

/** The provider's error bytes, spaced and ordered as no JSON.stringify of ours would write them. */
const ANTHROPIC_400 =
  '{"type": "error",  "error": {"type": "invalid_request_error", "message": "messages.1.content.0.thinking.signature: Invalid `signature` in `thinking` block"}, "request_id": "req_011CTest", "docs": {"see": ["thinking"]}}';
const OPENAI_400 =
  '{\n  "error": {\n    "message": "Item \'rs_1\' of type \'reasoning\' was provided without its required following item.",\n    "type": "invalid_request_error",\n    "param": "input",\n    "code": null,\n    "hint": 7\n  }\n}';

/** Answers once with these bytes, as they are. */
const answerBytes = (status: number, body: string, contentType = 'application/json') =>
  upstream.once((_req, res) => {
    res.writeHead(status, { 'content-type': contentType, 'request-id': 'req_upstream' });
    res.end(body);
  });

describe('passthrough error bodies', () => {
  // Clients match the provider's wording (Claude Code retries without thinking on a signature error), so on a
  // route that does not translate the provider's error reaches them byte for byte.
  it('Messages: an Anthropic 400 with an unusual message and extra fields comes back byte-identical', async () => {
    answerBytes(400, ANTHROPIC_400);
    const err = await anthropic().messages.create(msg).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as InstanceType<typeof Anthropic.APIError>).error).toEqual(JSON.parse(ANTHROPIC_400));

    answerBytes(400, ANTHROPIC_400);
    const res = await call(`${gw.url}/v1/messages`, {
      headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(msg),
    });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['request-id']).toBe('req_upstream');
    expect(res.text).toBe(ANTHROPIC_400);
  });

  it('Responses and Chat: an OpenAI 400 comes back byte-identical, its content type kept', async () => {
    answerBytes(400, OPENAI_400, 'application/json; charset=utf-8');
    const err = await openai().responses.create({ model: 'gpt-test', input: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.APIError>).error).toEqual(JSON.parse(OPENAI_400).error);

    answerBytes(400, OPENAI_400, 'application/json; charset=utf-8');
    const res = await call(`${gw.url}/v1/chat/completions`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` }, body: JSON.stringify(chat) });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.text).toBe(OPENAI_400);
  });

  it('a body that holds the provider key comes back with the key cut out, the rest as sent', async () => {
    const echoed = `{"error": {"message": "Incorrect model for key ${PROVIDER_OPENAI_KEY}.", "type": "invalid_request_error"}}`;
    answerBytes(400, echoed);
    const res = await call(`${gw.url}/v1/chat/completions`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` }, body: JSON.stringify(chat) });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain(PROVIDER_OPENAI_KEY);
    expect(res.text).toBe(echoed.replace(PROVIDER_OPENAI_KEY, '[redacted]'));
  });

  it('a translated route renders the error in the caller\'s shape, as before', async () => {
    answerBytes(400, ANTHROPIC_400);
    const res = await call(`${gw.url}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}` },
      body: JSON.stringify({ ...chat, model: 'claude-test' }),
    });
    expect(res.status).toBe(400);
    expect(res.text).not.toBe(ANTHROPIC_400);
    expect(res.json).toMatchObject({
      error: { message: 'messages.1.content.0.thinking.signature: Invalid `signature` in `thinking` block', param: null, code: null },
    });
  });

  it('a refused provider credential is still the gateway\'s 502, not the provider\'s body', async () => {
    answerBytes(401, ANTHROPIC_400);
    const res = await call(`${gw.url}/v1/messages`, {
      headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(msg),
    });
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ type: 'error', error: { type: 'api_error', message: expect.stringMatching(/refused the gateway's credential/) } });
  });
});

/** Sends part of a stream, then kills the connection. */
const dieAfter = (frames: string[], keep: number) => async (_req: unknown, res: import('node:http').ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  await writeSlowly(res, frames.slice(0, keep), 5);
  res.destroy();
};

describe('mid-stream failures end with the protocol’s own error', () => {
  it('Messages: the SDK stream throws the in-band error', async () => {
    upstream.once(dieAfter(messageFrames('claude-upstream'), 4));
    const stream = anthropic().messages.stream(msg);
    const err = await stream.finalMessage().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(String((err as Error).message)).toMatch(/broke off/);
  });

  it('Chat: the SDK stream throws the in-band error', async () => {
    upstream.once(dieAfter(chatFrames('gpt-upstream', false), 3));
    const stream = await openai().chat.completions.create({ ...chat, stream: true });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
    })().catch((e: unknown) => e);
    expect(seen.join('')).toBe('Hello from');
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(String((err as Error).message)).toMatch(/broke off/);
  });

  it('Responses: an error event, then response.failed', async () => {
    upstream.once(dieAfter(responsesFrames('gpt-upstream'), 5));
    const res = await call(`${gw.url}/v1/responses`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}` },
      body: JSON.stringify({ model: 'gpt-test', input: 'x', stream: true }),
    });
    const events = res.text.trim().split('\n\n');
    expect(events).toHaveLength(7);
    const error = JSON.parse(events[5]!.split('data: ')[1]!) as Record<string, unknown>;
    expect(events[5]).toMatch(/^event: error\n/);
    expect(error).toMatchObject({ type: 'error', sequence_number: 5, code: 'server_error', message: expect.stringMatching(/broke off/), error: { type: 'server_error' } });
    const failed = JSON.parse(events[6]!.split('data: ')[1]!) as { sequence_number: number; response: { id: string; status: string } };
    expect(failed).toMatchObject({ sequence_number: 6, response: { id: 'resp_up1', status: 'failed' } });
  });

  it('a stream that ends cleanly but early is not passed off as complete', async () => {
    upstream.once(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(messageFrames('claude-upstream').slice(0, 4).join(''));
    });
    const err = await anthropic().messages.stream(msg).finalMessage().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(String((err as Error).message)).toMatch(/ended the stream before it was complete/);
  });

  it('a stream that goes silent past idleMs ends with an error', async () => {
    upstream.once(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chatFrames('x', false)[0]!);
      // then nothing
    });
    const res = await call(`${gw.url}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}` },
      body: JSON.stringify({ ...chat, model: 'slow-model', stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/data: \{"error":\{"message":"The stream from provider 'slow' broke off: Provider 'slow' went silent for 0.3s."/);
    expect(res.text).not.toContain('[DONE]');
  });
});

describe('client hang-ups', () => {
  it('abort before the answer closes the upstream request', async () => {
    upstream.once(() => undefined); // holds the request open
    const controller = new AbortController();
    const pending = openai().chat.completions.create(chat, { signal: controller.signal }).catch((e: unknown) => e);
    while (upstream.received.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
    expect(await upstream.last().aborted).toBe(true);
  });

  it('abort mid-stream closes the upstream stream', async () => {
    upstream.once(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const frames = messageFrames('claude-upstream');
      await writeSlowly(res, [...frames.slice(0, 4), ...Array.from({ length: 200 }, () => frames[2]!)], 10);
    });
    const controller = new AbortController();
    const stream = await anthropic().messages.create({ ...msg, stream: true }, { signal: controller.signal });
    let n = 0;
    // The SDK ends an aborted iteration quietly.
    await (async () => {
      for await (const _ of stream) if (++n === 3) controller.abort();
    })().catch(() => undefined);
    expect(n).toBeLessThan(10);
    expect(await upstream.last().aborted).toBe(true);
    const lines = await waitForLines(gw, gw.lines().length);
    expect(lines.at(-1)).toMatch(/client closed/);
  });
});
