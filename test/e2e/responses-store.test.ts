/**
 * Responses history by reference on translated routes, through the real gateway with the openai SDK
 * and the Vercel AI SDK: `previous_response_id` and `item_reference` items resolve from the gateway's
 * store of recent translated answers (src/responses-store), per key group, within its expiry and byte
 * cap; an id it does not hold is a 400 naming it. The fake upstreams speak Chat and Messages, which
 * keep nothing, so the history they receive is what the gateway resolved.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Protocol } from '#src/protocols/types.js';
import type * as Ir from '#src/translate/ir.js';
import { receivedRequest } from '../clients/tool-loop-upstream.js';
import { answerWith, upstreams } from '../conformance/upstreams.js';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.js';
import { GATEWAY_KEY, startGateway, type TestGateway } from '../helpers/start-gateway.js';

const OTHER_KEY = 'mgw_other_group_key_0123456789abcdef';
const TRANSLATED = ['chat', 'messages'] as const satisfies readonly Protocol[];
const modelOn = (upstream: Protocol) => `on-${upstream}`;

/** Every answer carries the same upstream id, as some local servers' do: the gateway's ids must still differ. */
const textAnswer = (text: string): Ir.Response => ({
  id: 'up-1',
  model: 'upstream-model',
  created: 1_700_000_000,
  content: [{ type: 'text', text }],
  stopReason: 'end',
  usage: { inputTokens: 10, outputTokens: 3 },
});

/** What the upstream's last request held, turn by turn: role and the text of each part (tool parts by kind). */
function history(upstream: Protocol, body: unknown): { role: string; text: string }[] {
  const req = receivedRequest(upstream, body);
  return req.messages.flatMap((m) =>
    m.content.map((p) => ({ role: m.role, text: p.type === 'text' ? p.text : p.type })),
  );
}

async function startWith(upstreamServer: FakeUpstream, server: Record<string, number> = {}): Promise<TestGateway> {
  return startGateway({
    server,
    providers: Object.fromEntries(['chat', 'messages', 'responses'].map((p) => [p, upstreams[p as Protocol].provider(upstreamServer.url)])),
    models: Object.fromEntries(['chat', 'messages', 'responses'].map((p) => [modelOn(p as Protocol), { provider: p, upstreamModel: 'upstream-model' }])),
    keyGroups: { dev: { keys: [GATEWAY_KEY] }, other: { keys: [OTHER_KEY] } },
  });
}

const client = (gw: TestGateway, apiKey = GATEWAY_KEY) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0 });

/** One turn, whole or streamed; the Response the SDK read. */
async function turn(openai: OpenAI, body: { model: string; input: string; instructions?: string; previous_response_id?: string }, stream: boolean) {
  if (!stream) return openai.responses.create(body);
  return openai.responses.stream(body).finalResponse();
}

/** The Response's `store` (the SDK's type leaves it out). */
const storeOf = (response: object): unknown => (response as { store?: unknown }).store;

let upstreamServer: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstreamServer = await startFakeUpstream();
  gw = await startWith(upstreamServer);
});
afterAll(async () => {
  await gw.close();
  await upstreamServer.close();
});
beforeEach(() => upstreamServer.reset());

describe('previous_response_id on a translated route', () => {
  const cases = TRANSLATED.flatMap((upstream) => [false, true].map((stream) => ({ upstream, stream })));
  it.each(cases)('$upstream upstream, stream: $stream: the second turn carries the first turn input and answer', async ({ upstream, stream }) => {
    const openai = client(gw);
    upstreamServer.once(answerWith(upstream, textAnswer('Hello Ada.')));
    upstreamServer.once(answerWith(upstream, textAnswer('Your name is Ada.')));

    const first = await turn(openai, { model: modelOn(upstream), instructions: 'Be brief.', input: 'My name is Ada.' }, stream);
    expect(storeOf(first)).toBe(true);
    const second = await turn(openai, { model: modelOn(upstream), input: 'What is my name?', previous_response_id: first.id }, stream);

    expect(second.output_text).toBe('Your name is Ada.');
    expect(second.id).not.toBe(first.id);
    expect(second.previous_response_id).toBe(first.id);
    expect(history(upstream, upstreamServer.received[1]!.json)).toEqual([
      { role: 'user', text: 'My name is Ada.' },
      { role: 'assistant', text: 'Hello Ada.' },
      { role: 'user', text: 'What is my name?' },
    ]);
  });

  it('a third turn chained on the second carries the whole conversation', async () => {
    const openai = client(gw);
    for (const text of ['one', 'two', 'three']) upstreamServer.once(answerWith('chat', textAnswer(text)));
    const first = await openai.responses.create({ model: modelOn('chat'), input: 'a' });
    const second = await openai.responses.create({ model: modelOn('chat'), input: 'b', previous_response_id: first.id });
    await openai.responses.create({ model: modelOn('chat'), input: [{ role: 'user', content: 'c' }], previous_response_id: second.id });
    expect(history('chat', upstreamServer.received[2]!.json).map((m) => m.text)).toEqual(['a', 'one', 'b', 'two', 'c']);
  });

  it('an answer asked with store: false is not kept', async () => {
    const openai = client(gw);
    upstreamServer.once(answerWith('chat', textAnswer('not kept')));
    const first = await openai.responses.create({ model: modelOn('chat'), input: 'hi', store: false });
    expect(storeOf(first)).toBe(false);
    const err = await openai.responses.create({ model: modelOn('chat'), input: 'again', previous_response_id: first.id }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, param: 'previous_response_id' });
    expect(upstreamServer.received).toHaveLength(1);
  });

  it('an unknown id is a 400 in the Responses shape naming it, and nothing goes upstream', async () => {
    const err = await client(gw)
      .responses.create({ model: modelOn('messages'), input: 'hi', previous_response_id: 'resp_never' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({
      status: 400,
      param: 'previous_response_id',
      code: 'previous_response_not_found',
      error: { type: 'invalid_request_error', message: expect.stringContaining("'resp_never'") },
    });
    expect(upstreamServer.received).toHaveLength(0);
  });

  it("another key group's id does not resolve", async () => {
    upstreamServer.once(answerWith('chat', textAnswer('for dev only')));
    const first = await client(gw).responses.create({ model: modelOn('chat'), input: 'secret' });
    const err = await client(gw, OTHER_KEY)
      .responses.create({ model: modelOn('chat'), input: 'what did they say?', previous_response_id: first.id })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, param: 'previous_response_id', error: { message: expect.stringContaining(first.id) } });
    expect(upstreamServer.received).toHaveLength(1);
  });

  it('a native route sends previous_response_id on as it came, and stores nothing', async () => {
    upstreamServer.once(answerWith('responses', textAnswer('native')));
    await client(gw).responses.create({ model: modelOn('responses'), input: 'hi', previous_response_id: 'resp_from_openai' });
    expect(upstreamServer.last().json).toMatchObject({ previous_response_id: 'resp_from_openai', input: 'hi' });
  });
});

describe('item_reference from the Vercel AI SDK (store left on)', () => {
  const CALL = { id: 'call_w1', name: 'get_weather', input: { city: 'Paris' } };
  const callWithText: Ir.Response = {
    ...textAnswer('Let me look that up.'),
    content: [
      { type: 'text', text: 'Let me look that up.' },
      { type: 'tool_call', id: CALL.id, name: CALL.name, kind: 'function', arguments: JSON.stringify(CALL.input) },
    ],
    stopReason: 'tool_calls',
  };

  it.each(TRANSLATED)('%s upstream: the earlier assistant text comes back from the store', async (upstream) => {
    upstreamServer.once(answerWith(upstream, callWithText));
    upstreamServer.once(answerWith(upstream, textAnswer('Sunny, 18°C.')));
    const sent: unknown[] = [];
    const openai = createOpenAI({
      baseURL: `${gw.url}/v1`,
      apiKey: GATEWAY_KEY,
      fetch: async (url, init) => {
        sent.push(JSON.parse(String(init?.body)));
        return fetch(url, init);
      },
    });
    const result = await generateText({
      model: openai.responses(modelOn(upstream)),
      prompt: 'Weather in Paris?',
      tools: { get_weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async () => ({ celsius: 18 }) }) },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });

    expect(result.text).toBe('Sunny, 18°C.');
    // The SDK referred to its earlier text by id instead of sending it.
    expect(JSON.stringify(sent[1])).toMatch(/"type":"item_reference","id":"msg_/);
    expect(history(upstream, upstreamServer.received[1]!.json)).toEqual([
      { role: 'user', text: 'Weather in Paris?' },
      { role: 'assistant', text: 'Let me look that up.' },
      { role: 'assistant', text: 'tool_call' },
      { role: 'user', text: 'tool_result' },
    ]);
  });

  it('an unknown item is a 400 naming input[i].id', async () => {
    const res = await fetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: modelOn('chat'), input: [{ role: 'user', content: 'hi' }, { type: 'item_reference', id: 'msg_gone' }] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'input[1].id', message: expect.stringContaining("'msg_gone'") } });
    expect(upstreamServer.received).toHaveLength(0);
  });
});

describe('the store bounds', () => {
  it('an expired answer is a 400 naming its id', async () => {
    const short = await startWith(upstreamServer, { responsesStoreTtlMs: 1 });
    try {
      upstreamServer.once(answerWith('chat', textAnswer('soon gone')));
      const first = await client(short).responses.create({ model: modelOn('chat'), input: 'hi' });
      await new Promise((r) => setTimeout(r, 20));
      const err = await client(short)
        .responses.create({ model: modelOn('chat'), input: 'again', previous_response_id: first.id })
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 400, param: 'previous_response_id', error: { message: expect.stringContaining(first.id) } });
      const item = first.output[0]!;
      const byItem = await client(short)
        .responses.create({ model: modelOn('chat'), input: [{ type: 'item_reference', id: item.id! }] })
        .catch((e: unknown) => e);
      expect(byItem).toMatchObject({ status: 400, param: 'input[0].id' });
    } finally {
      await short.close();
    }
  });

  it('the byte cap evicts the least recently used answer', async () => {
    // Room for one exchange of this size (its input and the answer's item, as JSON), not two.
    const small = await startWith(upstreamServer, { responsesStoreBytes: 1000 });
    const padded = (word: string) => `${word} ${'.'.repeat(500)}`;
    try {
      const openai = client(small);
      upstreamServer.always(answerWith('chat', textAnswer('short answer')));
      const first = await openai.responses.create({ model: modelOn('chat'), input: padded('first') });
      const second = await openai.responses.create({ model: modelOn('chat'), input: padded('second') });
      const evicted = await openai.responses
        .create({ model: modelOn('chat'), input: 'x', previous_response_id: first.id })
        .catch((e: unknown) => e);
      expect(evicted).toMatchObject({ status: 400, param: 'previous_response_id' });
      const kept = await openai.responses.create({ model: modelOn('chat'), input: 'y', previous_response_id: second.id });
      expect(kept.output_text).toBe('short answer');
    } finally {
      await small.close();
    }
  });
});
