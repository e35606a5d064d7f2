/**
 * What one request may hold: `server.maxTools`, `maxMessages` and `maxContentBlocks`, per protocol
 * through the official SDKs (at the cap served, one over refused in the caller's shape); a request
 * with tens of thousands of colliding tool names on a translated route, which must neither freeze
 * the gateway nor take long; and top-level keys written twice, refused on every endpoint.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';
import { ENDPOINTS, errorOf, expectError, robustConfig } from './helpers.js';

const CAPS = { maxTools: 6, maxMessages: 8, maxContentBlocks: 10 };

let small: TestGateway;
let wide: TestGateway;
let standard: TestGateway;

beforeAll(async () => {
  small = await startGateway(robustConfig('http://127.0.0.1:9', { server: CAPS } as never));
  wide = await startGateway(robustConfig('http://127.0.0.1:9', { server: { maxTools: 100_000, maxBodyBytes: 64 * 1024 * 1024 } } as never));
  standard = await startGateway(robustConfig('http://127.0.0.1:9'));
});
afterAll(async () => {
  await Promise.all([small?.close(), wide?.close(), standard?.close()]);
});

const openai = (gw: TestGateway) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 });
const anthropic = (gw: TestGateway) => new Anthropic({ baseURL: gw.url, apiKey: GATEWAY_KEY, maxRetries: 0 });

type Sdk = 'chat' | 'responses' | 'messages' | 'count_tokens';
type Body = Record<string, unknown>;

/** Sends `body` with the SDK of the endpoint; resolves with 200 or the SDK's error. */
async function send(gw: TestGateway, sdk: Sdk, body: Body): Promise<{ status: number; error?: { type?: string | undefined; message?: string | undefined; param?: string | null | undefined } }> {
  try {
    if (sdk === 'chat') await openai(gw).chat.completions.create(body as never);
    else if (sdk === 'responses') await openai(gw).responses.create(body as never);
    else if (sdk === 'messages') await anthropic(gw).messages.create(body as never);
    else await anthropic(gw).messages.countTokens(body as never);
    return { status: 200 };
  } catch (err) {
    if (sdk === 'messages' || sdk === 'count_tokens') {
      if (!(err instanceof Anthropic.APIError)) throw err;
      const body = err.error as { type?: string; error?: { type?: string; message?: string } };
      expect(body.type).toBe('error');
      return { status: err.status ?? 0, error: { ...body.error } };
    }
    if (!(err instanceof OpenAI.APIError)) throw err;
    return { status: err.status ?? 0, error: { type: err.type, message: err.message, param: err.param ?? null } };
  }
}

const fn = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } });
const responsesFn = (name: string) => ({ type: 'function', name, parameters: { type: 'object', properties: {} } });
const anthropicTool = (name: string) => ({ name, input_schema: { type: 'object', properties: {} } });
const names = (n: number, prefix = 't') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const text = (t: string) => ({ type: 'text', text: t });
const inputText = (t: string) => ({ type: 'input_text', text: t });

interface CapCase {
  readonly name: string;
  readonly sdk: Sdk;
  readonly setting: keyof typeof CAPS;
  readonly param: string;
  /** A request holding exactly `n` of what the setting caps. */
  readonly body: (n: number) => Body;
}

const chat = (extra: Body, messages: unknown[] = [{ role: 'user', content: 'hi' }]): Body => ({ model: 'echo', messages, ...extra });
const responses = (input: unknown, extra: Body = {}): Body => ({ model: 'echo', input, ...extra });
const messages = (extra: Body, list: unknown[] = [{ role: 'user', content: 'hi' }]): Body => ({ model: 'echo', max_tokens: 16, messages: list, ...extra });
const countTokens = (extra: Body, list: unknown[] = [{ role: 'user', content: 'hi' }]): Body => ({ model: 'echo', messages: list, ...extra });

const CASES: CapCase[] = [
  // Chat
  { name: 'chat tools', sdk: 'chat', setting: 'maxTools', param: 'tools', body: (n) => chat({ tools: names(n).map(fn) }) },
  {
    name: 'chat tools and legacy functions together',
    sdk: 'chat',
    setting: 'maxTools',
    param: 'tools',
    body: (n) => chat({ tools: names(2).map(fn), functions: names(n - 2, 'f').map((name) => ({ name, parameters: { type: 'object', properties: {} } })) }),
  },
  { name: 'chat messages', sdk: 'chat', setting: 'maxMessages', param: 'messages', body: (n) => chat({}, names(n).map((t) => ({ role: 'user', content: t }))) },
  {
    name: 'chat content parts over several messages',
    sdk: 'chat',
    setting: 'maxContentBlocks',
    param: 'messages',
    body: (n) => chat({}, [{ role: 'system', content: [text('s')] }, { role: 'user', content: names(n - 1).map(text) }]),
  },
  // Responses
  { name: 'responses tools', sdk: 'responses', setting: 'maxTools', param: 'tools', body: (n) => responses('hi', { tools: names(n).map(responsesFn) }) },
  {
    name: 'responses tools inside a namespace',
    sdk: 'responses',
    setting: 'maxTools',
    param: 'tools',
    body: (n) => responses('hi', { tools: [{ type: 'namespace', name: 'ns', description: '', tools: names(n - 1).map(responsesFn) }] }),
  },
  {
    name: 'responses tools in an additional_tools item',
    sdk: 'responses',
    setting: 'maxTools',
    param: 'tools',
    body: (n) => responses([{ type: 'additional_tools', tools: names(n - 1).map(responsesFn) }, { role: 'user', content: 'hi' }], { tools: [responsesFn('top')] }),
  },
  { name: 'responses input items', sdk: 'responses', setting: 'maxMessages', param: 'input', body: (n) => responses(names(n).map((t) => ({ role: 'user', content: t }))) },
  {
    name: 'responses content parts, tool output parts included',
    sdk: 'responses',
    setting: 'maxContentBlocks',
    param: 'input',
    body: (n) =>
      responses([
        { role: 'user', content: names(n - 1).map(inputText) },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: [inputText('out')] },
      ]),
  },
  // Messages
  { name: 'messages tools', sdk: 'messages', setting: 'maxTools', param: 'tools', body: (n) => messages({ tools: names(n).map(anthropicTool) }) },
  { name: 'messages messages', sdk: 'messages', setting: 'maxMessages', param: 'messages', body: (n) => messages({}, names(n).map((t) => ({ role: 'user', content: t }))) },
  {
    name: 'messages blocks: system, content and tool_result content',
    sdk: 'messages',
    setting: 'maxContentBlocks',
    param: 'messages',
    // 2 system blocks + 1 text + tool_use + tool_result + (n - 5) blocks inside the result.
    body: (n) =>
      messages({ system: [text('a'), text('b')] }, [
        { role: 'user', content: [text('go')] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: names(n - 5).map(text) }] },
      ]),
  },
  { name: 'count_tokens tools', sdk: 'count_tokens', setting: 'maxTools', param: 'tools', body: (n) => countTokens({ tools: names(n).map(anthropicTool) }) },
  { name: 'count_tokens messages', sdk: 'count_tokens', setting: 'maxMessages', param: 'messages', body: (n) => countTokens({}, names(n).map((t) => ({ role: 'user', content: t }))) },
  {
    name: 'count_tokens blocks with system',
    sdk: 'count_tokens',
    setting: 'maxContentBlocks',
    param: 'messages',
    body: (n) => countTokens({ system: [text('a')] }, [{ role: 'user', content: names(n - 1).map(text) }]),
  },
];

describe('request caps, per protocol, through the SDKs', () => {
  it.each(CASES)('$name: at the cap served, one over refused naming the field and the setting', async ({ sdk, setting, param, body }) => {
    const cap = CAPS[setting];
    const under = await send(small, sdk, body(cap));
    expect(under, JSON.stringify(under.error)).toEqual({ status: 200 });
    const over = await send(small, sdk, body(cap + 1));
    expect(over.status).toBe(400);
    expect(over.error?.type).toBe('invalid_request_error');
    expect(over.error?.message).toContain(`${cap + 1}`);
    expect(over.error?.message).toContain(`at most ${cap} (server.${setting})`);
    if (sdk === 'chat' || sdk === 'responses') expect(over.error?.param).toBe(param);
    // The gateway keeps serving.
    expect(await send(small, sdk, body(1))).toEqual({ status: 200 });
  });

  it('a raw over-cap request gets the exact error shape of each family', async () => {
    for (const endpoint of ENDPOINTS) {
      const model = 'echo';
      const base = endpoint.body(model);
      const tools = endpoint.family === 'anthropic' ? names(7).map(anthropicTool) : endpoint.protocol === 'chat' ? names(7).map(fn) : names(7).map(responsesFn);
      const res = await fetch(`${small.url}${endpoint.path}`, { method: 'POST', headers: endpoint.headers(), body: JSON.stringify({ ...base, tools }) });
      const json = expectError({ status: res.status, headers: Object.fromEntries(res.headers), text: await res.text() }, 400, endpoint.family);
      expect(errorOf(json).message).toMatch(/7 .*at most 6 \(server\.maxTools\)/);
    }
  });
});

/** The largest /health answer time while `work` runs, polling every 20 ms. */
async function healthWhile<T>(gw: TestGateway, work: Promise<T>): Promise<{ value: T; polls: number }> {
  let done = false;
  let polls = 0;
  const watching = (async () => {
    while (!done) {
      const res = await fetch(`${gw.url}/health`);
      await res.text();
      expect(res.status).toBe(200);
      polls++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    const value = await work;
    return { value, polls };
  } finally {
    done = true;
    await watching;
  }
}

const oneChar = Array.from({ length: 50_000 }, (_, i) => String.fromCharCode(0x100 + i));
const longNames = Array.from({ length: 20_000 }, (_, i) => `${'n'.repeat(63)}${String.fromCharCode(0x100 + i)}`);
const chain = Array.from({ length: 3_000 }, (_, i) => `a${'_2'.repeat(i % 30)}${'!'.repeat(Math.floor(i / 30))}`);

describe('tens of thousands of colliding tool names on a translated route', () => {
  it.each([
    ['50,000 one-character names', oneChar],
    ['20,000 64-character names alike once sanitised', longNames],
    ['names that are each other’s suffixed forms', chain],
  ])('%s: refused over server.maxTools by default', async (_, toolNames) => {
    const over = await send(standard, 'chat', { model: 'echo-messages', messages: [{ role: 'user', content: 'hi' }], tools: toolNames.map(fn) });
    expect(over.status).toBe(400);
    expect(over.error?.message).toContain(`\`tools\` has ${toolNames.length} entries; this gateway accepts at most 1024 (server.maxTools).`);
    expect(await send(standard, 'chat', { model: 'echo-messages', messages: [{ role: 'user', content: 'hi' }] })).toEqual({ status: 200 });
  });

  it.each([
    ['50,000 one-character names, Chat to Messages', 'chat', 'echo-messages', oneChar],
    ['20,000 64-character names, Chat to Messages', 'chat', 'echo-messages', longNames],
    ['names that are each other’s suffixed forms, Chat to Messages', 'chat', 'echo-messages', chain],
    ['50,000 one-character names, Responses to Chat', 'responses', 'echo-chat', oneChar],
    ['20,000 64-character names, Messages to Chat', 'messages', 'echo-chat', longNames],
  ] as const)('%s: served within seconds with maxTools raised, /health answering meanwhile', async (_, sdk, model, toolNames) => {
    const body: Body =
      sdk === 'chat'
        ? { model, messages: [{ role: 'user', content: 'hi' }], tools: toolNames.map(fn) }
        : sdk === 'responses'
          ? { model, input: 'hi', tools: toolNames.map(responsesFn) }
          : { model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], tools: toolNames.map(anthropicTool) };
    const start = performance.now();
    const { value, polls } = await healthWhile(wide, send(wide, sdk, body));
    const tookMs = performance.now() - start;
    expect(value, JSON.stringify(value.error)).toEqual({ status: 200 });
    // A step that cost the square of 50,000 names would take minutes: seconds, even on a busy machine, is linear.
    expect(tookMs).toBeLessThan(20_000);
    // The event loop was not held for the whole request: /health answered while it was served.
    expect(polls).toBeGreaterThan(0);
    expect(await send(wide, sdk, { ...body, tools: [] })).toEqual({ status: 200 });
  });
});

describe('a top-level key written twice', () => {
  /** Bodies as text: no SDK writes a key twice. `%MODEL%`-free: each case writes its own model keys. */
  const CASES: { name: string; text: (body: Body) => string; key: string }[] = [
    { name: 'model twice', text: (b) => `${JSON.stringify(b).slice(0, -1)},"model":"echo-chat"}`, key: 'model' },
    { name: 'stream twice', text: (b) => `{"stream":false,${JSON.stringify(b).slice(1, -1)},"stream":true}`, key: 'stream' },
    { name: 'an escaped model and a plain one', text: (b) => `{"mo\\u0064el":"echo-chat",${JSON.stringify(b).slice(1)}`, key: 'model' },
    { name: 'tools twice', text: (b) => `{"tools":[],${JSON.stringify(b).slice(1, -1)},"tools":[]}`, key: 'tools' },
  ];

  for (const endpoint of ENDPOINTS) {
    it.each(CASES)(`${endpoint.name}: $name is refused, naming the key`, async ({ text, key }) => {
      const res = await fetch(`${standard.url}${endpoint.path}`, { method: 'POST', headers: endpoint.headers(), body: text(endpoint.body('echo')) });
      const json = expectError({ status: res.status, headers: Object.fromEntries(res.headers), text: await res.text() }, 400, endpoint.family);
      expect(errorOf(json).message).toContain(`"${key}" more than once at its top level`);
      const ok = await fetch(`${standard.url}${endpoint.path}`, { method: 'POST', headers: endpoint.headers(), body: JSON.stringify(endpoint.body('echo')) });
      expect(ok.status).toBe(200);
    });

    it(`${endpoint.name}: the same key repeated in nested objects is the upstream's business`, async () => {
      const body = endpoint.body('echo');
      const nested = `${JSON.stringify(body).slice(0, -1)},"metadata":{"model":"a","model":"b"}}`;
      const res = await fetch(`${standard.url}${endpoint.path}`, { method: 'POST', headers: endpoint.headers(), body: nested });
      expect(res.status, await res.text()).toBe(200);
    });
  }
});
