/**
 * A key group's `maxOutputTokens` and `maxChoices`: a request asking for more is refused 403 in the
 * caller's shape without reaching the provider; one that names no output limit reaches the provider
 * with the cap added (passed through: spliced into the bytes; translated: carried to the upstream's
 * field); one within the caps, and every request of a group without caps, goes unchanged.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { call } from '../helpers/http.js';
import { startGateway, testConfig, type TestGateway } from '../helpers/start-gateway.js';

const CAPPED = 'gw-capped-key-0123456789abcdef';
const FREE = 'gw-free-key-0123456789abcdef';
const CAP = 100;

let upstream: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gw = await startGateway(
    testConfig(upstream.url, {
      keyGroups: {
        capped: { keys: [CAPPED], maxOutputTokens: CAP, maxChoices: 2 },
        free: { keys: [FREE] },
      },
    }),
  );
});
afterAll(async () => {
  await gw.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

type Protocol = 'chat' | 'responses' | 'messages';
type Body = Record<string, unknown>;
const PATHS = { chat: '/v1/chat/completions', responses: '/v1/responses', messages: '/v1/messages' } as const;
const headers = (protocol: Protocol, key: string): Record<string, string> =>
  protocol === 'messages'
    ? { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' }
    : { 'content-type': 'application/json', authorization: `Bearer ${key}` };
const base = (protocol: Protocol, model: string): Body =>
  protocol === 'chat'
    ? { model, messages: [{ role: 'user', content: 'hi' }] }
    : protocol === 'responses'
      ? { model, input: 'hi' }
      : { model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };

const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const anthropic = (key: string) => new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });

async function sdkSend(protocol: Protocol, key: string, body: Body): Promise<void> {
  const params = body as never;
  if (protocol === 'chat') await openai(key).chat.completions.create(params);
  else if (protocol === 'responses') await openai(key).responses.create(params);
  else await anthropic(key).messages.create(params);
}

/** Sends raw bytes, so the test knows exactly what a passthrough upstream should receive. */
async function rawSend(protocol: Protocol, key: string, text: string) {
  return call(`${gw.url}${PATHS[protocol]}`, { headers: headers(protocol, key), body: text });
}

interface Refused {
  readonly name: string;
  readonly protocol: Protocol;
  readonly body: Body;
  readonly status: 400 | 403;
  readonly param: string;
  readonly message: RegExp;
}

const refused: readonly Refused[] = [
  { name: 'chat max_tokens over', protocol: 'chat', body: { ...base('chat', 'gpt-test'), max_tokens: 101 }, status: 403, param: 'max_tokens', message: /at most 100 output tokens .*maxOutputTokens.*`max_tokens` is 101/ },
  { name: 'chat max_completion_tokens over', protocol: 'chat', body: { ...base('chat', 'gpt-test'), max_completion_tokens: 4096 }, status: 403, param: 'max_completion_tokens', message: /at most 100 output tokens/ },
  { name: 'chat: one of two fields over', protocol: 'chat', body: { ...base('chat', 'gpt-test'), max_completion_tokens: 50, max_tokens: 5000 }, status: 403, param: 'max_tokens', message: /`max_tokens` is 5000/ },
  { name: 'chat translated to Messages, over', protocol: 'chat', body: { ...base('chat', 'claude-test'), max_tokens: 128000 }, status: 403, param: 'max_tokens', message: /at most 100 output tokens/ },
  { name: 'chat n over', protocol: 'chat', body: { ...base('chat', 'gpt-test'), n: 3 }, status: 403, param: 'n', message: /at most 2 choices .*maxChoices.*`n` is 3/ },
  { name: 'responses max_output_tokens over', protocol: 'responses', body: { ...base('responses', 'gpt-test'), max_output_tokens: 101 }, status: 403, param: 'max_output_tokens', message: /at most 100 output tokens/ },
  { name: 'responses translated, over', protocol: 'responses', body: { ...base('responses', 'claude-test'), max_output_tokens: 1e6 }, status: 403, param: 'max_output_tokens', message: /at most 100 output tokens/ },
  { name: 'messages max_tokens over', protocol: 'messages', body: { ...base('messages', 'claude-test'), max_tokens: 8000 }, status: 403, param: 'max_tokens', message: /at most 100 output tokens/ },
  { name: 'messages translated, over', protocol: 'messages', body: { ...base('messages', 'gpt-test'), max_tokens: 101 }, status: 403, param: 'max_tokens', message: /at most 100 output tokens/ },
  { name: 'chat max_tokens as a string', protocol: 'chat', body: { ...base('chat', 'gpt-test'), max_tokens: '99999' }, status: 400, param: 'max_tokens', message: /`max_tokens` must be a number/ },
  { name: 'responses max_output_tokens as a string', protocol: 'responses', body: { ...base('responses', 'gpt-test'), max_output_tokens: '50' }, status: 400, param: 'max_output_tokens', message: /must be a number/ },
  { name: 'chat n as a string', protocol: 'chat', body: { ...base('chat', 'gpt-test'), n: '3' }, status: 400, param: 'n', message: /`n` must be a number/ },
];

describe('over a cap', () => {
  it.each(refused)('$name → $status in the caller’s shape, nothing sent', async (c) => {
    const err = await sdkSend(c.protocol, CAPPED, c.body).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (c.protocol === 'messages') {
      expect(err).toBeInstanceOf(c.status === 403 ? Anthropic.PermissionDeniedError : Anthropic.BadRequestError);
      expect((err as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
        type: 'error',
        error: { type: c.status === 403 ? 'permission_error' : 'invalid_request_error', message: expect.stringMatching(c.message) },
      });
    } else {
      expect(err).toBeInstanceOf(c.status === 403 ? OpenAI.PermissionDeniedError : OpenAI.BadRequestError);
      const e = err as InstanceType<typeof OpenAI.APIError>;
      expect(e.type).toBe(c.status === 403 ? 'permission_error' : 'invalid_request_error');
      expect(e.param).toBe(c.param);
      expect(e.message).toMatch(c.message);
    }
    expect(upstream.received).toHaveLength(0);
    // The group keeps being served, and a group without caps may ask for the same.
    await sdkSend(c.protocol, CAPPED, base(c.protocol, c.body.model as string));
    if (c.status === 403) await sdkSend(c.protocol, FREE, c.body);
    expect(upstream.received).toHaveLength(c.status === 403 ? 2 : 1);
  });
});

interface Added {
  readonly name: string;
  readonly protocol: Protocol;
  readonly body: Body;
  /** The upstream's path and the field it must receive the cap in. */
  readonly path: string;
  readonly field: string;
}

const added: readonly Added[] = [
  { name: 'chat passed through to OpenAI', protocol: 'chat', body: base('chat', 'gpt-test'), path: '/v1/chat/completions', field: 'max_completion_tokens' },
  { name: 'chat passed through to OpenAI, streaming', protocol: 'chat', body: { ...base('chat', 'gpt-test'), stream: true }, path: '/v1/chat/completions', field: 'max_completion_tokens' },
  { name: 'chat passed through to an OpenAI-compatible server', protocol: 'chat', body: base('chat', 'local-chat'), path: '/v1/chat/completions', field: 'max_tokens' },
  { name: 'chat with max_tokens null, to OpenAI', protocol: 'chat', body: { ...base('chat', 'gpt-test'), max_tokens: null }, path: '/v1/chat/completions', field: 'max_completion_tokens' },
  { name: 'chat with max_tokens null, to a compatible server', protocol: 'chat', body: { ...base('chat', 'local-chat'), max_tokens: null }, path: '/v1/chat/completions', field: 'max_tokens' },
  { name: 'responses passed through', protocol: 'responses', body: base('responses', 'gpt-test'), path: '/v1/responses', field: 'max_output_tokens' },
  { name: 'chat translated to Messages', protocol: 'chat', body: base('chat', 'claude-test'), path: '/v1/messages', field: 'max_tokens' },
  { name: 'responses translated to Messages', protocol: 'responses', body: base('responses', 'claude-test'), path: '/v1/messages', field: 'max_tokens' },
  { name: 'responses translated to Chat (compatible)', protocol: 'responses', body: base('responses', 'local-chat'), path: '/v1/chat/completions', field: 'max_tokens' },
];

describe('no output limit named', () => {
  it.each(added)('$name: the upstream receives the cap as $field', async (c) => {
    const text = JSON.stringify(c.body);
    const res = await rawSend(c.protocol, CAPPED, text);
    expect(res.status).toBe(200);
    expect(upstream.received).toHaveLength(1);
    const got = upstream.last();
    expect(got.url.split('?')[0]).toBe(c.path);
    expect((got.json as Body)[c.field]).toBe(CAP);
    // Once only: a key sent twice is read differently by different servers.
    expect(got.body.toString().split(`"${c.field}"`)).toHaveLength(2);
  });

  it('passthrough splices the cap in and leaves every other byte as sent', async () => {
    const text = `{ "model" : "gpt-test", "messages":[{"role":"user","content":"h\\u0069 ✓"}],\n "temperature": 0.50}`;
    await rawSend('chat', CAPPED, text);
    expect(upstream.last().body.toString()).toBe(`{"max_completion_tokens":100, "model" : "gpt-upstream", "messages":[{"role":"user","content":"h\\u0069 ✓"}],\n "temperature": 0.50}`);
  });

  it('through the SDK, the cap reaches the provider', async () => {
    await openai(CAPPED).chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] });
    await openai(CAPPED).responses.create({ model: 'gpt-test', input: 'hi' });
    expect(upstream.received.map((r) => [(r.json as Body).max_completion_tokens, (r.json as Body).max_output_tokens])).toEqual([
      [CAP, undefined],
      [undefined, CAP],
    ]);
  });
});

interface Unchanged {
  readonly name: string;
  readonly protocol: Protocol;
  readonly key: string;
  readonly body: Body;
  /** Fields the upstream must receive as they are, and ones it must not receive. */
  readonly expected: Body;
}

const unchanged: readonly Unchanged[] = [
  { name: 'chat max_tokens under', protocol: 'chat', key: CAPPED, body: { ...base('chat', 'gpt-test'), max_tokens: 50 }, expected: { max_tokens: 50, max_completion_tokens: undefined } },
  { name: 'chat max_completion_tokens at the cap', protocol: 'chat', key: CAPPED, body: { ...base('chat', 'gpt-test'), max_completion_tokens: 100 }, expected: { max_completion_tokens: 100, max_tokens: undefined } },
  { name: 'chat n at the cap', protocol: 'chat', key: CAPPED, body: { ...base('chat', 'gpt-test'), max_tokens: 10, n: 2 }, expected: { n: 2 } },
  { name: 'responses max_output_tokens under', protocol: 'responses', key: CAPPED, body: { ...base('responses', 'gpt-test'), max_output_tokens: 99 }, expected: { max_output_tokens: 99 } },
  { name: 'messages max_tokens under', protocol: 'messages', key: CAPPED, body: { ...base('messages', 'claude-test'), max_tokens: 64 }, expected: { max_tokens: 64 } },
  { name: 'group without caps: chat names none', protocol: 'chat', key: FREE, body: base('chat', 'gpt-test'), expected: { max_tokens: undefined, max_completion_tokens: undefined } },
  { name: 'group without caps: responses names none', protocol: 'responses', key: FREE, body: base('responses', 'gpt-test'), expected: { max_output_tokens: undefined } },
  { name: 'group without caps: messages asks a lot', protocol: 'messages', key: FREE, body: { ...base('messages', 'claude-test'), max_tokens: 64000 }, expected: { max_tokens: 64000 } },
];

describe('within the caps, or no caps', () => {
  it.each(unchanged)('$name: passed through byte for byte', async (c) => {
    const text = JSON.stringify(c.body);
    const res = await rawSend(c.protocol, c.key, text);
    expect(res.status).toBe(200);
    const got = upstream.last();
    const renamed = c.protocol === 'messages' ? 'claude-upstream' : 'gpt-upstream';
    expect(got.body.toString()).toBe(text.replace(`"model":"${c.body.model as string}"`, `"model":"${renamed}"`));
    for (const [field, value] of Object.entries(c.expected)) expect((got.json as Body)[field]).toBe(value);
  });

  it('a translated request under the cap keeps its own limit', async () => {
    await rawSend('chat', CAPPED, JSON.stringify({ ...base('chat', 'claude-test'), max_tokens: 50 }));
    expect((upstream.last().json as Body).max_tokens).toBe(50);
  });

  it('count_tokens is not capped', async () => {
    const text = JSON.stringify({ model: 'claude-test', max_tokens: 5000, messages: [{ role: 'user', content: 'hi' }] });
    const res = await call(`${gw.url}/v1/messages/count_tokens`, { headers: headers('messages', CAPPED), body: text });
    expect(res.status).toBe(200);
    expect(upstream.last().body.toString()).toBe(text.replace('"claude-test"', '"claude-upstream"'));
  });
});

describe('a Gemini caller over a cap', () => {
  // Google's API reads both spellings of a field, so a cap holds for both.
  it.each([
    ['generationConfig.maxOutputTokens', { generationConfig: { maxOutputTokens: 101 } }, /at most 100 output tokens/],
    ['generation_config.max_output_tokens', { generation_config: { max_output_tokens: 101 } }, /at most 100 output tokens/],
    ['generationConfig.candidateCount', { generationConfig: { candidateCount: 3 } }, /at most 2 choices/],
    ['generation_config.candidate_count', { generation_config: { candidate_count: 3 } }, /at most 2 choices/],
  ])('%s → 403 in Google’s shape, nothing sent', async (field, extra, message) => {
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], ...extra });
    const res = await call(`${gw.url}/v1beta/models/gpt-test:generateContent`, { headers: { 'content-type': 'application/json', 'x-goog-api-key': CAPPED }, body });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED', message: expect.stringMatching(message) } });
    expect((res.json as { error: { message: string } }).error.message).toContain(`\`${field}\``);
    expect(upstream.received).toHaveLength(0);
  });
});
