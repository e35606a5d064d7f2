/**
 * encodeResponse and encodeStream as the official openai SDK (6.x) reads them:
 * `create` (JSON and raw stream) and the `stream()` helper's
 * `finalChatCompletion()`, which checks role, finish_reason and tool-call
 * type/name. For every IR response, what the helper folds from the stream must
 * equal what `create` parses from the JSON answer.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnswerServer, type AnswerServer } from '../../../../test/helpers/answer-server.js';
import type * as Ir from '#src/translate/ir.js';
import { responseToEvents } from '#src/translate/common/ir-stream.js';
import type { Json } from '#src/translate/types.js';
import { chatCodec } from './codec.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';

function ctx(): Ir.TranslateContext {
  return translateContext({
    caller: 'chat',
    upstream: 'messages',
    requestedModel: 'caller-model',
    upstreamModel: 'claude-x',
    upstreamDialect: 'anthropic',
  });
}

/** What the server answers: the IR events to encode (stream) or the IR response (JSON). */
let events: Ir.StreamEvent[] = [];
let response: Ir.Response | undefined;
let server: AnswerServer;

beforeAll(async () => {
  server = await startAnswerServer((_path, body) => {
    const callerBody = body as Json;
    if (callerBody.stream === true) {
      const enc = chatCodec.encodeStream(ctx(), callerBody);
      return { headers: { 'content-type': 'text/event-stream' }, body: events.map((e) => enc.push(e)).join('') + enc.end() };
    }
    return { body: JSON.stringify(chatCodec.encodeResponse(response!, ctx(), callerBody)) };
  });
});
afterAll(() => server.close());

const client = () => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'x', maxRetries: 0 });
const params = { model: 'caller-model', messages: [{ role: 'user' as const, content: 'hi' }] };
const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as Json;

const usage: Ir.Usage = { inputTokens: 120, outputTokens: 30, cacheReadTokens: 100, reasoningTokens: 8 };
const res = (content: Ir.AssistantPart[], stopReason: Ir.StopReason = 'end'): Ir.Response => ({
  id: 'msg_01abc',
  model: 'claude-x',
  created: 1_700_000_000,
  content,
  stopReason,
  usage,
});

const cases: [string, Ir.Response][] = [
  ['text', res([{ type: 'text', text: 'Hello there' }])],
  ['reasoning then text', res([{ type: 'reasoning', text: 'Let me think.', signature: 'sig' }, { type: 'text', text: 'Answer.' }])],
  ['one tool call', res([{ type: 'tool_call', id: 'toolu_1', name: 'get_weather', kind: 'function', arguments: '{"city":"Paris"}' }], 'tool_calls')],
  [
    'text and parallel tool calls',
    res(
      [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_call', id: 'toolu_1', name: 'get_weather', kind: 'function', arguments: '{"city":"Paris"}' },
        { type: 'tool_call', id: 'toolu_2', name: 'get_time', kind: 'function', arguments: '' },
      ],
      'tool_calls',
    ),
  ],
  ['custom-kind call as a function call', res([{ type: 'tool_call', id: 'call_9', name: 'apply_patch', kind: 'custom', arguments: '*** Begin Patch' }], 'tool_calls')],
  ['max tokens', res([{ type: 'text', text: 'Cut sh' }], 'max_tokens')],
  ['refusal', res([{ type: 'refusal', text: 'I cannot help with that.' }], 'refusal')],
  ['two text blocks', res([{ type: 'text', text: 'One. ' }, { type: 'text', text: 'Two.' }], 'pause')],
];

describe('openai SDK reads encodeResponse and encodeStream', () => {
  it.each(cases)('%s: stream helper result equals the JSON answer', async (_, r) => {
    response = r;
    events = responseToEvents(r);
    const json = plain(await client().chat.completions.create({ ...params, stream: false }));
    const folded = plain(
      await client().chat.completions.stream({ ...params, stream: true, stream_options: { include_usage: true } }).finalChatCompletion(),
    );
    // The helper adds `parsed: null`; nothing else differs.
    for (const c of folded.choices as Json[]) delete (c.message as Json).parsed;
    expect(folded).toEqual(json);
    expect(json).toMatchObject({ id: 'chatcmpl-msg_01abc', object: 'chat.completion', created: 1_700_000_000, model: 'caller-model' });
    expect(json.usage).toEqual({
      prompt_tokens: 120,
      completion_tokens: 30,
      total_tokens: 150,
      prompt_tokens_details: { cached_tokens: 100 },
      completion_tokens_details: { reasoning_tokens: 8 },
    });
  });

  it('maps the message fields', async () => {
    const get = async (r: Ir.Response) => {
      response = r;
      return plain(await client().chat.completions.create({ ...params, stream: false })).choices as Json[];
    };
    const [text] = await get(cases[0]![1]);
    expect(text).toEqual({ index: 0, message: { role: 'assistant', content: 'Hello there', refusal: null }, finish_reason: 'stop', logprobs: null });
    const [reasoning] = await get(cases[1]![1]);
    expect(reasoning!.message).toEqual({ role: 'assistant', content: 'Answer.', refusal: null, reasoning_content: 'Let me think.' });
    const [calls] = await get(cases[3]![1]);
    expect(calls!.finish_reason).toBe('tool_calls');
    expect((calls!.message as Json).tool_calls).toEqual([
      { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'toolu_2', type: 'function', function: { name: 'get_time', arguments: '' } },
    ]);
    const [custom] = await get(cases[4]![1]);
    expect((custom!.message as Json).tool_calls).toEqual([
      { id: 'call_9', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' } },
    ]);
    const [cut] = await get(cases[5]![1]);
    expect(cut!.finish_reason).toBe('length');
    const [refusal] = await get(cases[6]![1]);
    expect(refusal).toMatchObject({ message: { content: null, refusal: 'I cannot help with that.' }, finish_reason: 'content_filter' });
  });

  it('raw stream: role first, tool-call ordinals, usage only when asked, [DONE]', async () => {
    events = responseToEvents(cases[3]![1]);
    const chunks: Json[] = [];
    for await (const c of await client().chat.completions.create({ ...params, stream: true })) chunks.push(plain(c));
    expect(chunks[0]!.choices).toEqual([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null }]);
    expect(chunks.every((c) => !('usage' in c))).toBe(true);
    const calls = chunks.flatMap((c) => ((c.choices as Json[])[0]?.delta as Json | undefined)?.tool_calls ?? []) as Json[];
    expect(calls).toEqual([
      { index: 0, id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 0, function: { arguments: '{"city":"Paris"}' } },
      { index: 1, id: 'toolu_2', type: 'function', function: { name: 'get_time', arguments: '' } },
    ]);
    expect((chunks.at(-1)!.choices as Json[])[0]).toMatchObject({ delta: {}, finish_reason: 'tool_calls' });
    expect(new Set(chunks.map((c) => `${String(c.id)} ${String(c.created)} ${String(c.model)}`)).size).toBe(1);

    const withUsage: Json[] = [];
    for await (const c of await client().chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } })) withUsage.push(plain(c));
    expect(withUsage.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(withUsage.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 120 } });
  });

  it('an error mid-stream makes the SDK throw, in raw iteration and in the helper', async () => {
    events = [...responseToEvents(cases[0]![1]).slice(0, 3), { type: 'error', message: 'upstream overloaded', errorType: 'overloaded_error' }];
    const read = async () => {
      for await (const _ of await client().chat.completions.create({ ...params, stream: true })) void _;
    };
    await expect(read()).rejects.toMatchObject({ message: expect.stringContaining('upstream overloaded') as unknown, error: { type: 'overloaded_error' } });
    await expect(client().chat.completions.stream({ ...params, stream: true }).finalChatCompletion()).rejects.toThrow(/upstream overloaded/);
  });
});

describe('encodeStream frames', () => {
  const encode = (evs: Ir.StreamEvent[], body: Json = {}) => {
    const enc = chatCodec.encodeStream(ctx(), body);
    return evs.map((e) => enc.push(e)).join('') + enc.end();
  };

  it('after an error nothing follows, not even [DONE]', () => {
    const out = encode([{ type: 'start', id: 'x', model: 'm', created: 1 }, { type: 'error', message: 'boom' }, { type: 'finish', stopReason: 'end', usage }]);
    expect(out.trim().split('\n\n').at(-1)).toBe('data: {"error":{"message":"boom","type":"server_error","param":null,"code":null}}');
  });

  it('reasoning summaries and text are one reasoning_content text, a blank line apart, as in the JSON answer', () => {
    const r = res([
      { type: 'reasoning', text: 'detail', summary: ['first', 'second'], encrypted: 'enc' },
      { type: 'reasoning', text: 'more' },
      { type: 'text', text: 'ok' },
    ]);
    const out = encode(responseToEvents(r));
    const reasoning = out
      .split('\n\n')
      .filter((l) => l.includes('reasoning_content'))
      .map((l) => ((JSON.parse(l.slice(6)) as { choices: [{ delta: { reasoning_content: string } }] }).choices[0].delta.reasoning_content))
      .join('');
    const json = chatCodec.encodeResponse(r, ctx(), {}) as { choices: [{ message: { reasoning_content: string } }] };
    expect(reasoning).toBe('first\n\nsecond\n\ndetail\n\nmore');
    expect(json.choices[0].message.reasoning_content).toBe(reasoning);
  });
});
