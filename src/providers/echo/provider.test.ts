/**
 * What the echo provider puts on the wire, per protocol, read back as a client reads it: the JSON
 * body, or the SSE frames parsed with the gateway's own SSE reader.
 */
import { describe, expect, it } from 'vitest';
import { ECHO_PROVIDER } from '../../../test/helpers/echo-config.js';
import type { Protocol } from '../../protocols/types.js';
import { createSseDecoder, type SseEvent } from '../../sse/parse.js';
import type { UpstreamRequest } from '../types.js';
import { splitJson, splitWords } from './deltas.js';
import { createEchoProvider } from './provider.js';
import { estimateInputTokens, estimateOutputTokens } from './tokens.js';

const config = ECHO_PROVIDER;

const request = (protocol: Protocol, json: Record<string, unknown>, signal = new AbortController().signal): UpstreamRequest => ({
  protocol,
  operation: 'create',
  headers: {},
  body: Buffer.from(JSON.stringify(json)),
  json,
  signal,
});

const readAll = async (body: NodeJS.ReadableStream): Promise<string> => {
  let text = '';
  for await (const chunk of body) text += Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
  return text;
};

/** Every id is its prefix and `X`, so the prefixes show; the clock is fixed. */
const fixed = createEchoProvider(config, { now: () => 1_700_000_000_999, newId: (prefix) => `${prefix}X` });
const CREATED = 1_700_000_000;

// biome-ignore lint/suspicious/noExplicitAny: answers are read as a client reads parsed JSON, field by field, without a type of their own
type Json = Record<string, any>;

async function answer(protocol: Protocol, body: Record<string, unknown>): Promise<Json> {
  const res = await fixed.send(request(protocol, body));
  expect(res.headers['content-type']).toBe('application/json');
  return JSON.parse(await readAll(res.body)) as Json;
}

/** The stream's frames, each with its data parsed (Chat's `[DONE]` kept as text). */
async function stream(protocol: Protocol, body: Record<string, unknown>): Promise<{ event: string | undefined; data: Json | string }[]> {
  const res = await fixed.send(request(protocol, { ...body, stream: true }));
  expect(res.headers).toMatchObject({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const decoder = createSseDecoder();
  const frames: SseEvent[] = [...decoder.push(await readAll(res.body)), ...decoder.end()];
  return frames.map((f) => ({ event: f.event, data: f.data === '[DONE]' ? f.data : (JSON.parse(f.data) as Json) }));
}
const datas = (frames: { data: Json | string }[]): Json[] => frames.flatMap((f) => (typeof f.data === 'string' ? [] : [f.data]));

const weather = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
};
const TEXT = 'Hello there, world';
/** The reply is the tool call `get_weather({"city":"Paris"})`: forced, with the user text as the string argument. */
const CALL_ARGUMENTS = '{"city":"Paris"}';

const bodies = {
  chat: {
    text: { model: 'echo-model', messages: [{ role: 'user', content: TEXT }] },
    tool: {
      model: 'echo-model',
      messages: [{ role: 'user', content: 'Paris' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather } }],
      tool_choice: 'required',
    },
  },
  responses: {
    text: { model: 'echo-model', input: TEXT, instructions: 'be nice', temperature: 0.5, tools: [], tool_choice: 'auto' },
    tool: {
      model: 'echo-model',
      input: 'Paris',
      tools: [{ type: 'namespace', name: 'ns', tools: [{ type: 'function', name: 'get_weather', parameters: weather }] }],
      tool_choice: 'required',
    },
  },
  messages: {
    text: { model: 'echo-model', max_tokens: 5, messages: [{ role: 'user', content: TEXT }] },
    tool: {
      model: 'echo-model',
      max_tokens: 5,
      messages: [{ role: 'user', content: 'Paris' }],
      tools: [{ name: 'get_weather', input_schema: weather }],
      tool_choice: { type: 'any' },
    },
  },
  // Gemini names the model in the path and streams by its endpoint: the call carries both (see `geminiCall`).
  gemini: {
    text: { contents: [{ role: 'user', parts: [{ text: TEXT }] }] },
    tool: {
      contents: [{ role: 'user', parts: [{ text: 'Paris' }] }],
      tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: weather }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
    },
  },
} as const satisfies Record<Protocol, Record<'text' | 'tool', Record<string, unknown>>>;

describe('deltas', () => {
  it.each(['Hello there, world', '  two  spaces ', 'one', 'a\nb\tc', '😀 emoji 😀'])('splitWords(%j) concatenates back', (t) => {
    expect(splitWords(t).join('')).toBe(t);
  });

  it('splits per word, keeping the following whitespace', () => {
    expect(splitWords('Hello there,  world')).toEqual(['Hello ', 'there,  ', 'world']);
    expect(splitWords('')).toEqual([]);
  });

  it('splits JSON into several pieces without breaking surrogate pairs', () => {
    const json = JSON.stringify({ s: '😀😀😀😀😀' });
    const pieces = splitJson(json);
    expect(pieces.length).toBeGreaterThanOrEqual(2);
    expect(pieces.join('')).toBe(json);
    const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    for (const piece of pieces) expect(piece).not.toMatch(loneSurrogate);
    expect(splitJson('{}')).toEqual(['{', '}']);
  });
});

describe('usage estimates', () => {
  it('input: ceil(UTF-8 bytes of the JSON / 4)', () => {
    expect(estimateInputTokens({ a: 'é' })).toBe(Math.ceil(Buffer.byteLength('{"a":"é"}') / 4));
    expect(estimateInputTokens({ model: 'abcdefgh' })).toBe(5); // 18 bytes
  });
  it('output: max(1, ceil(chars / 4)) of the text or arguments', () => {
    expect(estimateOutputTokens({ kind: 'text', text: '' })).toBe(1);
    expect(estimateOutputTokens({ kind: 'text', text: TEXT })).toBe(5); // 18 chars
    expect(estimateOutputTokens({ kind: 'tool', name: 'f', input: {}, arguments: CALL_ARGUMENTS })).toBe(4); // 16 chars
  });
});

describe('chat', () => {
  const input = (body: object) => estimateInputTokens(body);

  it('answers the completion for text and for a tool call', async () => {
    expect(await answer('chat', bodies.chat.text)).toEqual({
      id: 'chatcmpl-echoX',
      object: 'chat.completion',
      created: CREATED,
      model: 'echo-model',
      choices: [{ index: 0, message: { role: 'assistant', content: TEXT, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: expect.objectContaining({ prompt_tokens: input(bodies.chat.text), completion_tokens: 5, total_tokens: input(bodies.chat.text) + 5 }),
    });
    const tool = (await answer('chat', bodies.chat.tool)).choices[0];
    expect(tool.finish_reason).toBe('tool_calls');
    expect(tool.message).toMatchObject({
      content: null,
      tool_calls: [{ id: 'call_echoX', type: 'function', function: { name: 'get_weather', arguments: CALL_ARGUMENTS } }],
    });
  });

  it('streams text: role first, word deltas, finish, no usage field unless asked, then [DONE] with no event lines', async () => {
    const frames = await stream('chat', bodies.chat.text);
    expect(frames.every((f) => f.event === undefined)).toBe(true);
    expect(frames.at(-1)?.data).toBe('[DONE]');
    const chunks = datas(frames);
    for (const c of chunks) {
      expect(c).toMatchObject({ id: 'chatcmpl-echoX', object: 'chat.completion.chunk', created: CREATED, model: 'echo-model' });
      expect(c).not.toHaveProperty('usage');
    }
    expect(chunks[0]?.choices[0]?.delta).toMatchObject({ role: 'assistant', content: '' });
    expect(chunks.slice(1, -1).map((c) => c.choices[0]?.delta.content)).toEqual(splitWords(TEXT));
    expect(chunks.slice(0, -1).every((c) => c.choices[0]?.finish_reason === null)).toBe(true);
    expect(chunks.at(-1)?.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
  });

  it('streams a tool call with include_usage: the call, argument pieces, finish, usage chunk', async () => {
    const body = { ...bodies.chat.tool, stream_options: { include_usage: true } };
    const chunks = datas(await stream('chat', body));
    const prompt = input({ ...body, stream: true });
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls[0]).toEqual({ index: 0, id: 'call_echoX', type: 'function', function: { name: 'get_weather', arguments: '' } });
    const fragments = calls.slice(1);
    expect(fragments.length).toBeGreaterThanOrEqual(2);
    for (const f of fragments) expect(Object.keys(f).sort()).toEqual(['function', 'index']);
    expect(fragments.map((f) => f.function.arguments).join('')).toBe(CALL_ARGUMENTS);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: prompt, completion_tokens: 4, total_tokens: prompt + 4 } });
  });
});

describe('responses', () => {
  const body = bodies.responses.text;

  it('answers the full Response, echoing request settings', async () => {
    expect(await answer('responses', body)).toMatchObject({
      id: 'resp_echoX',
      object: 'response',
      created_at: CREATED,
      status: 'completed',
      error: null,
      incomplete_details: null,
      instructions: 'be nice',
      metadata: {},
      model: 'echo-model',
      parallel_tool_calls: true,
      temperature: 0.5,
      tool_choice: 'auto',
      tools: [],
      output: [{ id: 'msg_echoX', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: TEXT, annotations: [] }] }],
      usage: {
        input_tokens: estimateInputTokens(body),
        output_tokens: 5,
        total_tokens: estimateInputTokens(body) + 5,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    });
  });

  it('streams text in the canonical order with sequence numbers, every event named after its type', async () => {
    const frames = await stream('responses', body);
    const events = datas(frames);
    for (const f of frames) expect(f.data).toMatchObject({ type: f.event });
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[0]).toMatchObject({ response: { id: 'resp_echoX', status: 'in_progress', output: [], usage: null } });
    expect(events[2]).toMatchObject({ output_index: 0, item: { id: 'msg_echoX', type: 'message', status: 'in_progress', content: [] } });
    const deltas = events.filter((e) => e.type === 'response.output_text.delta');
    for (const d of deltas) expect(d).toMatchObject({ item_id: 'msg_echoX', output_index: 0, content_index: 0, logprobs: [] });
    expect(deltas.map((d) => d.delta).join('')).toBe(TEXT);
    // The closing snapshot is the complete answer, counting the `stream` field among the input.
    const whole = await answer('responses', body);
    const prompt = estimateInputTokens({ ...body, stream: true });
    const usage = { ...whole.usage, input_tokens: prompt, total_tokens: prompt + 5 };
    expect(events.at(-1)).toEqual({ type: 'response.completed', sequence_number: 10, response: { ...whole, usage } });
  });

  it('streams a namespaced function call', async () => {
    const events = datas(await stream('responses', bodies.responses.tool));
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[2]?.item).toEqual({
      id: 'fc_echoX',
      type: 'function_call',
      status: 'in_progress',
      call_id: 'call_echoX',
      name: 'get_weather',
      namespace: 'ns',
      arguments: '',
    });
    const deltas = events.filter((e) => e.type === 'response.function_call_arguments.delta');
    expect(deltas.every((d) => d.item_id === 'fc_echoX')).toBe(true);
    expect(deltas.map((d) => d.delta).join('')).toBe(CALL_ARGUMENTS);
    expect(events[6]).toMatchObject({ item_id: 'fc_echoX', name: 'get_weather', arguments: CALL_ARGUMENTS });
    expect(events[7]?.item).toMatchObject({ status: 'completed', arguments: CALL_ARGUMENTS, namespace: 'ns' });
  });
});

describe('messages', () => {
  it('answers the message for text and for a tool call', async () => {
    expect(await answer('messages', bodies.messages.text)).toMatchObject({
      id: 'msg_echoX',
      type: 'message',
      role: 'assistant',
      model: 'echo-model',
      content: [{ type: 'text', text: TEXT }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: estimateInputTokens(bodies.messages.text), output_tokens: 5 },
    });
    expect(await answer('messages', bodies.messages.tool)).toMatchObject({
      content: [{ type: 'tool_use', id: 'toolu_echoX', name: 'get_weather', input: { city: 'Paris' } }],
      stop_reason: 'tool_use',
    });
  });

  it('streams a tool call: start, ping, block, JSON fragments, delta, stop', async () => {
    const frames = await stream('messages', bodies.messages.tool);
    for (const f of frames) expect(f.data).toMatchObject({ type: f.event });
    const events = datas(frames);
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const input = estimateInputTokens({ ...bodies.messages.tool, stream: true });
    expect(events[0]).toMatchObject({ message: { id: 'msg_echoX', content: [], stop_reason: null, usage: { input_tokens: input } } });
    expect(events[2]).toEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'toolu_echoX', name: 'get_weather', input: {}, caller: { type: 'direct' } },
    });
    const json = events
      .filter((e) => e.type === 'content_block_delta')
      .map((e) => e.delta.partial_json)
      .join('');
    expect(JSON.parse(json)).toEqual({ city: 'Paris' });
    expect(events[7]).toMatchObject({ delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { input_tokens: input, output_tokens: 4 } });
  });

  it('streams text deltas that concatenate to the text', async () => {
    const events = datas(await stream('messages', bodies.messages.text));
    const texts = events.filter((e) => e.type === 'content_block_delta').map((e) => e.delta.text);
    expect(texts).toEqual(splitWords(TEXT));
    expect(events.at(-2)).toMatchObject({ delta: { stop_reason: 'end_turn' } });
  });
});

/** A Gemini call as the pipeline makes it: the model and the stream flag beside the body. */
const geminiCall = (json: Record<string, unknown>, stream: boolean): UpstreamRequest => ({ ...request('gemini', json), model: 'gemini-x', stream });

async function geminiStream(json: Record<string, unknown>): Promise<{ event: string | undefined; data: Json }[]> {
  const res = await fixed.send(geminiCall(json, true));
  expect(res.headers).toMatchObject({ 'content-type': 'text/event-stream; charset=utf-8', 'x-request-id': 'req_echoX' });
  const decoder = createSseDecoder();
  return [...decoder.push(await readAll(res.body)), ...decoder.end()].map((f) => ({ event: f.event, data: JSON.parse(f.data) as Json }));
}

describe('gemini', () => {
  it('answers text and a tool call as functionCall parts, the model from the call', async () => {
    const text = await fixed.send(geminiCall(bodies.gemini.text, false));
    expect(text.headers).toEqual({ 'content-type': 'application/json', 'x-request-id': 'req_echoX' });
    const json = JSON.parse(await readAll(text.body)) as Json;
    expect(json).toMatchObject({
      candidates: [{ content: { role: 'model', parts: [{ text: TEXT }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: estimateInputTokens(bodies.gemini.text), candidatesTokenCount: 5 },
      modelVersion: 'gemini-x',
    });
    expect(json).not.toHaveProperty('model');
    const tool = JSON.parse(await readAll((await fixed.send(geminiCall(bodies.gemini.tool, false))).body)) as Json;
    expect(tool.candidates[0].content.parts).toEqual([{ functionCall: { id: 'call_echoX', name: 'get_weather', args: { city: 'Paris' } } }]);
  });

  it('streams unnamed chunks whose texts concatenate, the last with the finish reason and usage', async () => {
    const frames = await geminiStream(bodies.gemini.text);
    for (const f of frames) expect(f.event).toBeUndefined();
    const texts = frames.flatMap((f) => (f.data.candidates?.[0]?.content?.parts ?? []).map((p: Json) => p.text ?? ''));
    expect(texts.join('')).toBe(TEXT);
    const last = frames.at(-1)!.data;
    expect(last.candidates[0].finishReason).toBe('STOP');
    expect(last.usageMetadata).toMatchObject({ promptTokenCount: estimateInputTokens(bodies.gemini.text), candidatesTokenCount: 5 });
    expect(frames.slice(0, -1).every((f) => f.data.candidates?.[0]?.finishReason === undefined)).toBe(true);
  });

  it('streams a tool call as a whole functionCall part', async () => {
    const calls = (await geminiStream(bodies.gemini.tool)).flatMap((f) =>
      (f.data.candidates?.[0]?.content?.parts ?? []).filter((p: Json) => p.functionCall !== undefined),
    );
    expect(calls.map((p: Json) => p.functionCall)).toEqual([{ id: 'call_echoX', name: 'get_weather', args: { city: 'Paris' } }]);
  });

  it('counts tokens as Gemini answers them, of the contents or of a wrapped request alike', async () => {
    const contents = { contents: bodies.gemini.text.contents };
    for (const json of [contents, { generateContentRequest: contents }]) {
      const res = await fixed.send({ ...geminiCall(json, false), operation: 'count_tokens' });
      expect(JSON.parse(await readAll(res.body))).toEqual({ totalTokens: estimateInputTokens(contents) });
    }
  });
});

describe('createEchoProvider', () => {
  let counter = 0;
  const provider = createEchoProvider(config, { now: () => 1_700_000_000_999, newId: (prefix) => `${prefix}_${++counter}` });

  it('answers JSON with the protocol headers, model, clock and ids', async () => {
    counter = 0;
    const res = await provider.send(request('messages', { model: 'claude-x', max_tokens: 5, messages: [{ role: 'user', content: 'hey' }] }));
    expect(res.status).toBe(200);
    expect(res.headers).toEqual({ 'content-type': 'application/json', 'request-id': 'req_echo_1' });
    const json = JSON.parse(await readAll(res.body));
    expect(json).toMatchObject({ id: 'msg_echo_2', model: 'claude-x', content: [{ type: 'text', text: 'hey' }] });

    const chat = await provider.send(request('chat', { model: 'gpt-x', messages: [{ role: 'user', content: 'yo' }] }));
    expect(chat.headers['x-request-id']).toMatch(/^req_echo_/);
    expect(JSON.parse(await readAll(chat.body))).toMatchObject({ id: expect.stringMatching(/^chatcmpl-echo_/), created: 1_700_000_000, model: 'gpt-x' });
  });

  it('streams SSE bytes', async () => {
    const res = await provider.send(request('responses', { model: 'gpt-x', input: 'a b', stream: true }));
    expect(res.headers).toMatchObject({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const text = await readAll(res.body);
    expect(text.startsWith('event: response.created\ndata: {"type":"response.created","sequence_number":0,')).toBe(true);
    expect(text.endsWith('\n\n')).toBe(true);
    expect(text.match(/^event: /gm)).toHaveLength(10);
  });

  it('answers count_tokens with the input estimate, for the protocols that count', async () => {
    const json = { model: 'claude-x', messages: [{ role: 'user', content: 'foo' }] };
    const res = await provider.send({ ...request('messages', json), operation: 'count_tokens' });
    expect(JSON.parse(await readAll(res.body))).toEqual({ input_tokens: estimateInputTokens(json) });
    await expect(provider.send({ ...request('chat', json), operation: 'count_tokens' })).rejects.toMatchObject({ status: 400 });
  });

  it('stops the stream when the client goes away', async () => {
    const controller = new AbortController();
    const long = 'word '.repeat(50_000);
    const res = await provider.send(request('chat', { model: 'm', stream: true, messages: [{ role: 'user', content: long }] }, controller.signal));
    const seen: Buffer[] = [];
    const done = (async () => {
      for await (const chunk of res.body) {
        seen.push(chunk as Buffer);
        if (seen.length === 3) controller.abort();
      }
    })();
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen.length).toBeLessThan(1000);
    expect(res.body.destroyed).toBe(true);
  });

  it('close() resolves', async () => {
    await expect(provider.close()).resolves.toBeUndefined();
  });
});
