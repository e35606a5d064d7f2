/**
 * What Claude Code asks of a gateway besides model calls: `HEAD /` at start, the model list it
 * discovers models from (`?limit=1000`, Anthropic's shape and paging), its session and agent
 * headers recorded in the log, and `count_tokens` on models whose provider does not speak Messages.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '../../src/config/schema.js';
import { type FakeUpstream, sendJson, startFakeUpstream } from '../helpers/fake-upstream.js';
import { cannedReply } from '../helpers/canned.js';
import type { Behaviour } from '../helpers/received.js';
import { call } from '../helpers/http.js';
import { GATEWAY_KEY, startGateway, testConfig, waitForLines, withoutRetries, type TestGateway } from '../helpers/start-gateway.js';

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());
beforeEach(() => upstream.reset());

function config(): WrittenConfig {
  const base = testConfig(upstream.url);
  return withoutRetries({
    ...base,
    models: {
      ...base.models,
      'claude-deepseek': {
        provider: 'local',
        upstreamModel: 'deepseek-chat',
        displayName: 'DeepSeek V3 (via gateway)',
        description: 'DeepSeek behind the gateway',
        contextWindow: 128_000,
        maxOutputTokens: 8192,
      },
      'claude-quiet': { provider: 'local', countTokens: 'off' },
    },
  } as WrittenConfig);
}

/** The fields OpenAI's input-token counter takes; like the real one, it refuses any other with a 400. */
const COUNTER_FIELDS = new Set(['model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'reasoning', 'text', 'truncation', 'conversation', 'previous_response_id']);
const strictCounter =
  (count: number): Behaviour =>
  (req, res) => {
    if (req.url !== '/v1/responses/input_tokens') return cannedReply(req, res);
    const unknown = Object.keys(req.json as object).filter((k) => !COUNTER_FIELDS.has(k));
    if (unknown.length > 0) {
      sendJson(res, 400, { error: { message: `Unknown parameter: '${unknown[0]}'.`, type: 'invalid_request_error', param: unknown[0], code: 'unknown_parameter' } });
      return;
    }
    sendJson(res, 200, { object: 'response.input_tokens', input_tokens: count });
  };

const COUNT_REQUEST = {
  model: 'gpt-test',
  system: 'You are Claude Code.',
  messages: [{ role: 'user' as const, content: 'Count the tokens of this request, please.' }],
  tools: [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } }, required: ['path'] } }],
};

async function until<T>(read: () => T, done: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("Claude Code's gateway protocol", () => {
  let gw: TestGateway;
  let logFile: string;
  beforeAll(async () => {
    logFile = join(mkdtempSync(join(tmpdir(), 'mgw-cc-')), 'requests.jsonl');
    gw = await startGateway(config(), { logFile });
  });
  afterAll(() => gw.close());
  const logEntries = () =>
    (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const anthropic = () => new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });

  it('answers HEAD / (the probe Claude Code sends at start, without a key) and GET /', async () => {
    const head = await call(`${gw.url}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    const get = await call(`${gw.url}/`, { method: 'GET' });
    expect(get.status).toBe(200);
    expect(get.json).toMatchObject({ name: 'model-gateway', endpoints: expect.arrayContaining(['/v1/messages', '/v1/models']) });
  });

  it("lists models the way Claude Code's discovery reads them: ?limit=1000, display_name, limits from the config", async () => {
    const res = await call(`${gw.url}/v1/models?limit=1000`, { method: 'GET', headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'anthropic-version': '2023-06-01' } });
    expect(res.status).toBe(200);
    const body = res.json as { data: Record<string, unknown>[]; has_more: boolean; first_id: string; last_id: string };
    expect(body.has_more).toBe(false);
    const ids = body.data.map((m) => m.id);
    // Glob models have no single name: not listed.
    expect(ids).not.toContain('claude-*');
    expect(ids).toEqual(['gpt-test', 'claude-test', 'local-chat', 'no-stream', 'chat-only', 'echo', 'claude-deepseek', 'claude-quiet']);
    expect(body.data.find((m) => m.id === 'claude-deepseek')).toEqual({
      type: 'model',
      id: 'claude-deepseek',
      display_name: 'DeepSeek V3 (via gateway)',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      description: 'DeepSeek behind the gateway',
      max_input_tokens: 128_000,
      max_tokens: 8192,
    });
    // Without the limits in the config, none are made up.
    expect(body.data.find((m) => m.id === 'claude-test')).toEqual({ type: 'model', id: 'claude-test', display_name: 'claude-test', created_at: expect.any(String) });
  });

  it("pages as Anthropic's API does: the SDK's auto-pagination follows after_id to the end; before_id goes back", async () => {
    const client = anthropic();
    const ids: string[] = [];
    for await (const m of client.models.list({ limit: 3 })) ids.push(m.id);
    expect(ids).toEqual(['gpt-test', 'claude-test', 'local-chat', 'no-stream', 'chat-only', 'echo', 'claude-deepseek', 'claude-quiet']);

    const first = await client.models.list({ limit: 3 });
    expect(first.data.map((m) => m.id)).toEqual(['gpt-test', 'claude-test', 'local-chat']);
    expect(first).toMatchObject({ has_more: true, first_id: 'gpt-test', last_id: 'local-chat' });
    const back = await client.models.list({ limit: 2, before_id: 'no-stream' });
    expect(back.data.map((m) => m.id)).toEqual(['claude-test', 'local-chat']);
    expect(back).toMatchObject({ has_more: true, first_id: 'claude-test', last_id: 'local-chat' });
    const last = await client.models.list({ after_id: 'echo' });
    expect(last.data.map((m) => m.id)).toEqual(['claude-deepseek', 'claude-quiet']);
    expect(last.has_more).toBe(false);
    // Twenty a page when no limit is given: the eight fit in one.
    expect((await client.models.list()).data).toHaveLength(8);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=two', 'limit'],
    ['after_id=nope', 'after_id'],
    ['after_id=gpt-test&before_id=echo', 'after_id'],
  ])('refuses a bad page (%s) with a 400 in Anthropic shape', async (query, param) => {
    const res = await call(`${gw.url}/v1/models?${query}`, { method: 'GET', headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining(param) } });
  });

  it('records the session and agent headers in the log, escaped and cut to length', async () => {
    const before = gw.lines().length;
    // What a header can carry: no ESC or line break, but C1 controls (U+009B is a one-byte CSI to many terminals).
    const hostile = `agent\u009b31m-${'x'.repeat(500)}`;
    await anthropic().messages.create(
      { model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'X-Claude-Code-Session-Id': 'sess-1', 'x-claude-code-agent-id': 'a-explore', 'x-claude-code-parent-agent-id': 'a-main' } },
    );
    await anthropic().messages.create(
      { model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'X-Claude-Code-Session-Id': 'sess-1', 'x-claude-code-agent-id': hostile } },
    );
    const lines = await waitForLines(gw, before + 2);
    expect(lines[before]).toContain('agent a-explore');
    // The file is written in batches: read until both entries are in.
    const mine = await until(() => logEntries().filter((e) => e.sessionId === 'sess-1'), (found) => found.length === 2);
    expect(mine[0]).toMatchObject({ sessionId: 'sess-1', agentId: 'a-explore', parentAgentId: 'a-main' });
    const cut = mine[1]!.agentId as string;
    expect(cut.startsWith('agent\\x9b31m-xxx')).toBe(true);
    expect(cut).not.toContain('\u009b');
    expect(cut.length).toBeLessThan(140);
    expect(mine[1]).not.toHaveProperty('parentAgentId');
  });

  it("counts with OpenAI's own counter for an openai provider, sending only the fields it takes", async () => {
    upstream.always(strictCounter(42));
    const res = await call(`${gw.url}/v1/messages/count_tokens`, {
      headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ ...COUNT_REQUEST, thinking: { type: 'enabled', budget_tokens: 2048 }, tool_choice: { type: 'auto' } }),
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ input_tokens: 42 });
    expect(res.headers['x-model-gateway-token-estimate']).toBeUndefined();
    const sent = upstream.last();
    expect(sent.url).toBe('/v1/responses/input_tokens');
    expect(sent.headers.authorization).toMatch(/^Bearer /);
    expect(sent.json).toMatchObject({ model: 'gpt-upstream', instructions: 'You are Claude Code.', tools: [expect.objectContaining({ type: 'function', name: 'Read' })] });
    expect(JSON.stringify(sent.json)).toContain('Count the tokens of this request');
    // The log shows the count as a call to the counter.
    const [entry] = await until(() => logEntries().filter((e) => e.path === '/v1/messages/count_tokens'), (found) => found.length === 1);
    expect(entry).toMatchObject({
      status: 200,
      provider: 'openai',
      upstreamModel: 'gpt-upstream',
      protocol: 'messages',
      upstreamProtocol: 'responses',
      attempts: [{ status: 200, body: { json: { model: 'gpt-upstream' } }, response: { json: { input_tokens: 42 } } }],
    });
  });

  it('estimates when the counter fails, when the provider has none, and answers 404 where counting is off', async () => {
    upstream.always((_req, res) => sendJson(res, 500, { error: { message: 'boom', type: 'server_error' } }));
    const client = anthropic();
    const failed = await client.messages.countTokens(COUNT_REQUEST).withResponse();
    expect(failed.response.headers.get('x-model-gateway-token-estimate')).toBe('true');
    expect(failed.data.input_tokens).toBeGreaterThan(20);

    upstream.reset();
    const local = await client.messages.countTokens({ ...COUNT_REQUEST, model: 'claude-deepseek' }).withResponse();
    expect(local.response.headers.get('x-model-gateway-token-estimate')).toBe('true');
    expect(local.data.input_tokens).toBe(failed.data.input_tokens);
    // An openai-compatible server has no counter: nothing was asked upstream.
    expect(upstream.received).toHaveLength(0);

    await expect(client.messages.countTokens({ ...COUNT_REQUEST, model: 'claude-quiet' })).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    expect(upstream.received).toHaveLength(0);
  });
});
