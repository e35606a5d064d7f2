/**
 * Every check the gateway makes before forwarding, in order, each with its
 * status and its error body in the caller's own protocol shape. None of these
 * requests may reach the provider.
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import { CI_KEY, GATEWAY_KEY, startGateway, testConfig, type TestGateway } from '../helpers/start-gateway.js';

let upstream: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gw = await startGateway(testConfig(upstream.url, { server: { maxBodyBytes: 2048 } }));
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

const bearer = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
const anthropicHeaders = (key: string) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' });
const chatBody = (extra: object = {}) => JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], ...extra });
const messagesBody = (extra: object = {}) =>
  JSON.stringify({ model: 'claude-test', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], ...extra });

type Shape = 'openai' | 'anthropic';
interface Case {
  name: string;
  method?: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  status: number;
  shape: Shape;
  type: string;
  code?: string | null;
  param?: string | null;
  message: RegExp;
}

const cases: Case[] = [
  // 1. routing
  { name: 'unknown path', path: '/v1/nope', headers: bearer(GATEWAY_KEY), body: '{}', status: 404, shape: 'openai', type: 'invalid_request_error', message: /Unknown path/ },
  { name: 'Anthropic base URL ending in /v1', path: '/v1/v1/messages', headers: anthropicHeaders(GATEWAY_KEY), body: messagesBody(), status: 404, shape: 'anthropic', type: 'not_found_error', message: /must not end in \/v1/ },
  { name: 'wrong method', method: 'GET', path: '/v1/chat/completions', headers: bearer(GATEWAY_KEY), status: 405, shape: 'openai', type: 'invalid_request_error', message: /use POST/ },
  { name: 'wrong method on messages', method: 'PUT', path: '/v1/messages', headers: anthropicHeaders(GATEWAY_KEY), body: '{}', status: 405, shape: 'anthropic', type: 'invalid_request_error', message: /use POST/ },
  // 2. authentication
  { name: 'missing key (chat)', path: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, body: chatBody(), status: 401, shape: 'openai', type: 'invalid_request_error', code: 'invalid_api_key', message: /Missing API key/ },
  { name: 'unknown key (responses)', path: '/v1/responses', headers: bearer('wrong'), body: '{}', status: 401, shape: 'openai', type: 'invalid_request_error', code: 'invalid_api_key', message: /Invalid API key/ },
  { name: 'missing key (messages)', path: '/v1/messages', headers: { 'anthropic-version': '2023-06-01' }, body: messagesBody(), status: 401, shape: 'anthropic', type: 'authentication_error', message: /x-api-key/ },
  { name: 'unknown key (messages, x-api-key)', path: '/v1/messages', headers: anthropicHeaders('wrong'), body: messagesBody(), status: 401, shape: 'anthropic', type: 'authentication_error', message: /Invalid API key/ },
  { name: 'key check comes before the version check', path: '/v1/messages', headers: { 'x-api-key': 'wrong' }, body: messagesBody(), status: 401, shape: 'anthropic', type: 'authentication_error', message: /Invalid API key/ },
  // 3. anthropic-version
  { name: 'missing anthropic-version', path: '/v1/messages', headers: { 'x-api-key': GATEWAY_KEY }, body: messagesBody(), status: 400, shape: 'anthropic', type: 'invalid_request_error', message: /anthropic-version/ },
  { name: 'malformed anthropic-version', path: '/v1/messages/count_tokens', headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'anthropic-version': 'latest' }, body: messagesBody(), status: 400, shape: 'anthropic', type: 'invalid_request_error', message: /Invalid anthropic-version header 'latest'/ },
  // 4. body
  { name: 'not JSON', path: '/v1/chat/completions', headers: bearer(GATEWAY_KEY), body: '{"model":', status: 400, shape: 'openai', type: 'invalid_request_error', message: /not valid JSON/ },
  { name: 'empty body', path: '/v1/messages', headers: anthropicHeaders(GATEWAY_KEY), body: '', status: 400, shape: 'anthropic', type: 'invalid_request_error', message: /empty/ },
  { name: 'not an object', path: '/v1/responses', headers: bearer(GATEWAY_KEY), body: '[1,2]', status: 400, shape: 'openai', type: 'invalid_request_error', message: /must be a JSON object/ },
  { name: 'too large (declared length)', path: '/v1/messages', headers: anthropicHeaders(GATEWAY_KEY), body: messagesBody({ pad: 'x'.repeat(4000) }), status: 413, shape: 'anthropic', type: 'request_too_large', message: /limit of 2048 bytes/ },
  // 5. shallow validation
  { name: 'model missing', path: '/v1/chat/completions', headers: bearer(GATEWAY_KEY), body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }), status: 400, shape: 'openai', type: 'invalid_request_error', param: 'model', message: /model/ },
  { name: 'model empty', path: '/v1/messages', headers: anthropicHeaders(GATEWAY_KEY), body: messagesBody({ model: '' }), status: 400, shape: 'anthropic', type: 'invalid_request_error', message: /`model` must be a non-empty string/ },
  { name: 'messages empty', path: '/v1/chat/completions', headers: bearer(GATEWAY_KEY), body: chatBody({ messages: [] }), status: 400, shape: 'openai', type: 'invalid_request_error', param: 'messages', message: /at least one message/ },
  { name: 'message without role', path: '/v1/chat/completions', headers: bearer(GATEWAY_KEY), body: chatBody({ messages: [{ role: 'user', content: 'a' }, { content: 'b' }] }), status: 400, shape: 'openai', type: 'invalid_request_error', param: 'messages[1].role', message: /messages\[1\]\.role/ },
  { name: 'message not an object', path: '/v1/messages', headers: anthropicHeaders(GATEWAY_KEY), body: messagesBody({ messages: ['hi'] }), status: 400, shape: 'anthropic', type: 'invalid_request_error', message: /messages\[0\]/ },
  { name: 'input missing', path: '/v1/responses', headers: bearer(GATEWAY_KEY), body: JSON.stringify({ model: 'gpt-test' }), status: 400, shape: 'openai', type: 'invalid_request_error', param: 'input', message: /input/ },
  { name: 'input of the wrong type', path: '/v1/responses', headers: bearer(GATEWAY_KEY), body: JSON.stringify({ model: 'gpt-test', input: 42 }), status: 400, shape: 'openai', type: 'invalid_request_error', param: 'input', message: /string or an array/ },
  { name: 'max_tokens missing', path: '/v1/messages', headers: anthropicHeaders(GATEWAY_KEY), body: JSON.stringify({ model: 'claude-test', messages: [{ role: 'user', content: 'x' }] }), status: 400, shape: 'anthropic', type: 'invalid_request_error', message: /max_tokens: Field required/ },
  { name: 'max_tokens not positive', path: '/v1/messages', headers: anthropicHeaders(GATEWAY_KEY), body: messagesBody({ max_tokens: 0 }), status: 400, shape: 'anthropic', type: 'invalid_request_error', message: /max_tokens: must be a positive integer/ },
  { name: 'stream not a boolean', path: '/v1/chat/completions', headers: bearer(GATEWAY_KEY), body: chatBody({ stream: 'yes' }), status: 400, shape: 'openai', type: 'invalid_request_error', param: 'stream', message: /stream/ },
  // 6. model
  { name: 'unknown model', path: '/v1/chat/completions', headers: bearer(GATEWAY_KEY), body: chatBody({ model: 'nope' }), status: 404, shape: 'openai', type: 'invalid_request_error', code: 'model_not_found', param: 'model', message: /'nope' does not exist/ },
  { name: 'unknown model (messages)', path: '/v1/messages', headers: anthropicHeaders(GATEWAY_KEY), body: messagesBody({ model: 'nope' }), status: 404, shape: 'anthropic', type: 'not_found_error', message: /'nope' does not exist/ },
  // 7. permissions and support
  { name: 'model not allowed for the group', path: '/v1/chat/completions', headers: bearer(CI_KEY), body: chatBody({ model: 'claude-test' }), status: 403, shape: 'openai', type: 'permission_error', message: /Key group 'ci' may not use model 'claude-test'/ },
  { name: 'protocol not allowed for the group', path: '/v1/responses', headers: bearer(CI_KEY), body: JSON.stringify({ model: 'gpt-test', input: 'x' }), status: 403, shape: 'openai', type: 'permission_error', message: /Key group 'ci' may not use the Responses API/ },
  { name: 'protocol not allowed for the model', path: '/v1/responses', headers: bearer(GATEWAY_KEY), body: JSON.stringify({ model: 'chat-only', input: 'x' }), status: 400, shape: 'openai', type: 'invalid_request_error', message: /Model 'chat-only' is not available through the Responses API/ },
  { name: 'feature not allowed for the group (tools)', path: '/v1/chat/completions', headers: bearer(CI_KEY), body: chatBody({ tools: [{ type: 'function', function: { name: 'f' } }] }), status: 403, shape: 'openai', type: 'permission_error', message: /Key group 'ci' may not use tools \(requested with model 'gpt-test'\)/ },
  { name: 'feature not supported by the model (streaming)', path: '/v1/chat/completions', headers: bearer(GATEWAY_KEY), body: chatBody({ model: 'no-stream', stream: true }), status: 400, shape: 'openai', type: 'invalid_request_error', message: /Model 'no-stream' does not support streaming/ },
  { name: 'feature not supported by the model (images)', path: '/v1/chat/completions', headers: bearer(GATEWAY_KEY), body: chatBody({ model: 'local-chat', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }] }), status: 400, shape: 'openai', type: 'invalid_request_error', message: /Model 'local-chat' does not support image input/ },
  { name: 'feature not supported by the model (reasoning)', path: '/v1/chat/completions', headers: bearer(GATEWAY_KEY), body: chatBody({ model: 'local-chat', reasoning_effort: 'high' }), status: 400, shape: 'openai', type: 'invalid_request_error', message: /Model 'local-chat' does not support reasoning/ },
  { name: 'protocol not allowed for the group (messages)', path: '/v1/messages', headers: anthropicHeaders(CI_KEY), body: messagesBody({ model: 'gpt-test' }), status: 403, shape: 'anthropic', type: 'permission_error', message: /may not use the Messages API/ },
  { name: 'thinking counts as reasoning', path: '/v1/messages', headers: anthropicHeaders(GATEWAY_KEY), body: messagesBody({ model: 'claude-basic-1', thinking: { type: 'enabled', budget_tokens: 1024 } }), status: 400, shape: 'anthropic', type: 'invalid_request_error', message: /Model 'claude-basic-1' does not support reasoning\/thinking/ },
  { name: 'image inside a tool result', path: '/v1/messages', headers: anthropicHeaders(GATEWAY_KEY), body: messagesBody({ model: 'local-chat', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] }] }] }), status: 400, shape: 'anthropic', type: 'invalid_request_error', message: /does not support image input/ },
];

describe('checks before forwarding', () => {
  it.each(cases)('$name → $status', async (c) => {
    const res = await call(`${gw.url}${c.path}`, {
      method: c.method ?? 'POST',
      headers: c.headers,
      ...(c.body !== undefined ? { body: c.body } : {}),
    });
    expect(res.status).toBe(c.status);
    expect(res.headers['content-type']).toBe('application/json');
    if (c.shape === 'openai') {
      const body = res.json as { error: { message: string; type: string; param: string | null; code: string | null } };
      expect(Object.keys(body)).toEqual(['error']);
      expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
      expect(body.error.type).toBe(c.type);
      expect(body.error.message).toMatch(c.message);
      if (c.code !== undefined) expect(body.error.code).toBe(c.code);
      if (c.param !== undefined) expect(body.error.param).toBe(c.param);
    } else {
      const body = res.json as { type: string; error: { type: string; message: string }; request_id: string };
      expect(body.type).toBe('error');
      expect(body.error.type).toBe(c.type);
      expect(body.error.message).toMatch(c.message);
      expect(body.request_id).toMatch(/^req_/);
    }
    expect(upstream.received).toHaveLength(0);
  });

  it('checks each request for its features on a route it has taken before', async () => {
    // The route (model, provider, plan, the group's model and protocol checks) is made once per key group;
    // the features a request asks for are not part of it.
    const plain = () => call(`${gw.url}/v1/chat/completions`, { headers: bearer(CI_KEY), body: chatBody() });
    const withTools = () => call(`${gw.url}/v1/chat/completions`, { headers: bearer(CI_KEY), body: chatBody({ tools: [{ type: 'function', function: { name: 'f' } }] }) });
    const statuses: number[] = [];
    for (const send of [plain, withTools, plain, withTools]) statuses.push((await send()).status);
    expect(statuses).toEqual([200, 403, 200, 403]);
    expect(upstream.received).toHaveLength(2);
  });

  it('answers 405 with an Allow header', async () => {
    const res = await call(`${gw.url}/v1/messages`, { method: 'GET' });
    expect(res.headers.allow).toBe('POST');
  });

  it('refuses a chunked body past the limit without reading the rest, and keeps serving', async () => {
    const { request } = await import('undici');
    async function* body() {
      yield Buffer.from(messagesBody().slice(0, -1));
      for (let i = 0; i < 100; i++) yield Buffer.from(`, "pad${i}": "${'x'.repeat(1000)}"`);
      yield Buffer.from('}');
    }
    const res = await request(`${gw.url}/v1/messages`, { method: 'POST', headers: anthropicHeaders(GATEWAY_KEY), body: Readable.from(body()) }).catch(
      (err: unknown) => err,
    );
    // The gateway answers 413 and closes; depending on timing the client sees the answer or the reset.
    if (!(res instanceof Error)) {
      expect((res as { statusCode: number }).statusCode).toBe(413);
      await (res as { body: { dump(): Promise<void> } }).body.dump();
    }
    const ok = await call(`${gw.url}/v1/messages`, { headers: anthropicHeaders(GATEWAY_KEY), body: messagesBody() });
    expect(ok.status).toBe(200);
  });

  it('ignores the query string and a trailing slash', async () => {
    const res = await call(`${gw.url}/v1/messages/?beta=true`, { headers: anthropicHeaders(GATEWAY_KEY), body: messagesBody() });
    expect(res.status).toBe(200);
    expect(upstream.last().url).toBe('/v1/messages');
  });

  it('accepts the key as Bearer on Messages', async () => {
    const res = await call(`${gw.url}/v1/messages`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'anthropic-version': '2026-10-21' },
      body: messagesBody(),
    });
    expect(res.status).toBe(200);
  });

  it('serves /health without a key', async () => {
    const res = await call(`${gw.url}/health`, { method: 'GET' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok' });
  });
});
