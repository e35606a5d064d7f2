/**
 * The conversation view's data, from real exchanges: a gateway with the inspector (history on, as
 * serve runs it) and the echo provider, called in each protocol, whole and streamed, through a tool
 * loop; each exchange's detail read back over the inspector's API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/helpers/http.js';
import { GATEWAY_KEY, startGateway, testConfig, type TestGateway } from '../../test/helpers/start-gateway.js';
import { inspectorWiring } from '../cli/commands/serve.js';
import type { Protocol } from '../protocols/types.js';
import { createInspector, type Inspector } from './inspector.js';
import type { ExchangeDetail, ExchangeList } from './common/types.js';

let gw: TestGateway;
let inspector: Inspector;
let cookie: string;

beforeAll(async () => {
  inspector = createInspector();
  gw = await startGateway(testConfig('http://127.0.0.1:9'), inspectorWiring(inspector));
  const res = await call(inspector.link(gw.url), { method: 'GET' });
  cookie = String(res.headers['set-cookie']).split(';')[0]!;
});
afterAll(async () => {
  inspector.close();
  await gw.close();
});

const SCHEMA = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
const ASK = 'call lookup please';

/** Each protocol's request: a system prompt, the user's text naming the tool (so echo calls it), or the tool's result. */
const CALLS: Record<Protocol, (stream: boolean, result?: string) => { path: string; headers: Record<string, string>; body: unknown }> = {
  chat: (stream, result) => ({
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${GATEWAY_KEY}` },
    body: {
      model: 'echo',
      stream,
      tools: [{ type: 'function', function: { name: 'lookup', parameters: SCHEMA } }],
      messages: [
        { role: 'system', content: 'Be brief' },
        { role: 'user', content: ASK },
        ...(result
          ? [
              { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] },
              { role: 'tool', tool_call_id: 'call_1', content: result },
            ]
          : []),
      ],
    },
  }),
  responses: (stream, result) => ({
    path: '/v1/responses',
    headers: { authorization: `Bearer ${GATEWAY_KEY}` },
    body: {
      model: 'echo',
      stream,
      instructions: 'Be brief',
      tools: [{ type: 'function', name: 'lookup', parameters: SCHEMA }],
      input: [
        { role: 'user', content: ASK },
        ...(result
          ? [
              { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"q":"x"}' },
              { type: 'function_call_output', call_id: 'call_1', output: result },
            ]
          : []),
      ],
    },
  }),
  messages: (stream, result) => ({
    path: '/v1/messages',
    headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' },
    body: {
      model: 'echo',
      max_tokens: 100,
      stream,
      system: 'Be brief',
      tools: [{ name: 'lookup', input_schema: SCHEMA }],
      messages: [
        { role: 'user', content: ASK },
        ...(result
          ? [
              { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'lookup', input: { q: 'x' } }] },
              { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: result }] },
            ]
          : []),
      ],
    },
  }),
  gemini: (stream, result) => ({
    path: stream ? '/v1beta/models/echo:streamGenerateContent?alt=sse' : '/v1beta/models/echo:generateContent',
    headers: { 'x-goog-api-key': GATEWAY_KEY },
    body: {
      systemInstruction: { parts: [{ text: 'Be brief' }] },
      tools: [{ functionDeclarations: [{ name: 'lookup', parameters: SCHEMA }] }],
      contents: [
        { role: 'user', parts: [{ text: ASK }] },
        ...(result
          ? [
              { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 'x' } } }] },
              { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { result } } }] },
            ]
          : []),
      ],
    },
  }),
};

async function detailOfLast(): Promise<ExchangeDetail> {
  const list = (await call(`${gw.url}/_inspector/api/exchanges`, { method: 'GET', headers: { cookie } })).json as ExchangeList;
  const id = list.exchanges[0]!.id;
  return (await call(`${gw.url}/_inspector/api/exchanges/${encodeURIComponent(id)}`, { method: 'GET', headers: { cookie } })).json as ExchangeDetail;
}

async function send(protocol: Protocol, stream: boolean, result?: string): Promise<ExchangeDetail> {
  const c = CALLS[protocol](stream, result);
  const res = await call(`${gw.url}${c.path}`, { headers: { 'content-type': 'application/json', ...c.headers }, body: JSON.stringify(c.body) });
  expect(res.status).toBe(200);
  return detailOfLast();
}

const CASES = (['chat', 'responses', 'messages', 'gemini'] as const).flatMap((p) => [false, true].map((stream) => [p, stream] as const));

describe('an exchange read as a conversation', () => {
  it.each(CASES)('%s (stream %s): system, user text, tools, and the tool call the answer made, assembled', async (protocol, stream) => {
    const { conversation: c } = await send(protocol, stream);
    expect(c?.unreadable).toBeUndefined();
    expect(c).toMatchObject({ protocol, system: ['Be brief'], tools: ['lookup'] });
    expect(c?.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: ASK }] }]);
    expect(c?.answer).toMatchObject({ streamed: stream, stopReason: 'tool_calls' });
    expect(c?.answer?.error).toBeUndefined();
    const call = c?.answer?.content.find((p) => p.type === 'tool_call');
    expect(call).toMatchObject({ type: 'tool_call', name: 'lookup' });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ q: ASK });
    if (stream) expect(c?.answer?.events).toBeGreaterThan(1);
  });

  it.each(CASES)('%s (stream %s): the tool loop, its call and result in the history, and the text answer', async (protocol, stream) => {
    const { conversation: c } = await send(protocol, stream, 'found 3 rows');
    expect(c?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(c?.messages[1]?.content[0]).toMatchObject({ type: 'tool_call', name: 'lookup' });
    const result = c?.messages[2]?.content[0];
    expect(result).toMatchObject({ type: 'tool_result' });
    expect(JSON.stringify(result)).toContain('found 3 rows');
    const text = c?.answer?.content.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).join('');
    expect(text).toContain('found 3 rows');
    expect(c?.answer?.stopReason).toBe('end');
  });

  it('has none for an endpoint that is not a create (the models list)', async () => {
    expect((await call(`${gw.url}/v1/models`, { method: 'GET', headers: { authorization: `Bearer ${GATEWAY_KEY}` } })).status).toBe(200);
    const d = await detailOfLast();
    expect(d.exchange.path).toBe('/v1/models');
    expect(d.conversation).toBeUndefined();
  });

  it('says why a body it cannot read is not a conversation, and still answers', async () => {
    const res = await call(`${gw.url}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'echo', messages: 'not a list' }),
    });
    expect(res.status).toBe(400);
    const d = await detailOfLast();
    expect(d.conversation?.unreadable).toMatch(/could not be read/);
    expect(d.conversation?.answer?.error).toBeDefined();
  });
});
