import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../config/types.js';
import { PROTOCOLS, type Protocol } from '../../protocols/types.js';
import type { UpstreamRequest } from '../types.js';
import { chatChunks, chatCompletion } from './chat.js';
import { splitJson, splitWords } from './deltas.js';
import { encodeSse } from './encode.js';
import { messagesEvents, messagesJson } from './messages.js';
import { estimateInputTokens, estimateOutputTokens, type EchoMeta } from './meta.js';
import { createEchoProvider } from './provider.js';
import type { EchoReply } from './reply.js';
import { responsesEvents, responsesJson } from './responses.js';

const meta: EchoMeta = {
  model: 'echo-model',
  created: 1_700_000_000,
  inputTokens: 12,
  ids: { response: 'R', message: 'M', call: 'C', callItem: 'F' },
};
const textReply: EchoReply = { kind: 'text', text: 'Hello there, world' };
const toolReply: EchoReply = { kind: 'tool', name: 'get_weather', input: { city: 'Paris' }, arguments: '{"city":"Paris"}' };

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
    expect(estimateOutputTokens(textReply)).toBe(5); // 18 chars
    expect(estimateOutputTokens(toolReply)).toBe(4); // 16 chars
  });
});

describe('chat encoding', () => {
  it('builds the completion for text and for a tool call', () => {
    expect(chatCompletion(textReply, {}, meta)).toEqual({
      id: 'R',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'echo-model',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello there, world', refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: expect.objectContaining({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 }),
    });
    const tool = chatCompletion(toolReply, {}, meta).choices[0];
    expect(tool.finish_reason).toBe('tool_calls');
    expect(tool.message).toMatchObject({
      content: null,
      tool_calls: [{ id: 'C', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
    });
  });

  it('streams text: role first, word deltas, finish, no usage field unless asked', () => {
    const chunks = chatChunks(textReply, { stream: true }, meta);
    for (const c of chunks) {
      expect(c).toMatchObject({ id: 'R', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'echo-model' });
      expect(c).not.toHaveProperty('usage');
    }
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '', refusal: null });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(textReply.text);
    expect(chunks.slice(0, -1).every((c) => c.choices[0]?.finish_reason === null)).toBe(true);
    expect(chunks.at(-1)?.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
  });

  it('streams a tool call with include_usage: first fragment, argument pieces, finish, usage chunk', () => {
    const chunks = chatChunks(toolReply, { stream: true, stream_options: { include_usage: true } }, meta);
    expect(chunks[0]?.choices[0]?.delta).toEqual({
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [{ index: 0, id: 'C', type: 'function', function: { name: 'get_weather', arguments: '' } }],
    });
    const fragments = chunks.slice(1, -2).map((c) => c.choices[0]?.delta.tool_calls?.[0]);
    expect(fragments.length).toBeGreaterThanOrEqual(2);
    for (const f of fragments) expect(Object.keys(f ?? {}).sort()).toEqual(['function', 'index']);
    expect(fragments.map((f) => f?.function.arguments).join('')).toBe(toolReply.arguments);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } });
  });

  it('ends the SSE with data: [DONE] and no event lines', () => {
    const sse = encodeSse('chat', textReply, { stream: true }, meta);
    expect(sse.at(-1)).toEqual({ data: '[DONE]' });
    expect(sse.every((e) => e.event === undefined)).toBe(true);
  });
});

describe('responses encoding', () => {
  const body = { model: 'echo-model', input: 'x', instructions: 'be nice', temperature: 0.5, tools: [], tool_choice: 'auto' };

  it('builds the full Response, echoing request settings', () => {
    const response = responsesJson(textReply, body, meta);
    expect(response).toMatchObject({
      id: 'R',
      object: 'response',
      created_at: 1_700_000_000,
      status: 'completed',
      error: null,
      incomplete_details: null,
      instructions: 'be nice',
      metadata: {},
      parallel_tool_calls: true,
      temperature: 0.5,
      top_p: 1,
      tool_choice: 'auto',
      tools: [],
      output: [
        {
          id: 'M',
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Hello there, world', annotations: [] }],
        },
      ],
      usage: { input_tokens: 12, output_tokens: 5, total_tokens: 17, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
    });
  });

  it('streams text in the canonical order with sequence numbers', () => {
    const events = responsesEvents(textReply, body, meta);
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
    expect(events[0]).toMatchObject({ response: { id: 'R', status: 'in_progress', output: [], usage: null } });
    expect(events[2]).toMatchObject({ output_index: 0, item: { id: 'M', type: 'message', status: 'in_progress', content: [] } });
    const deltas = events.filter((e) => e.type === 'response.output_text.delta');
    for (const d of deltas) expect(d).toMatchObject({ item_id: 'M', output_index: 0, content_index: 0, logprobs: [] });
    expect(deltas.map((d) => d.delta).join('')).toBe(textReply.text);
    expect(events.at(-1)).toEqual({ type: 'response.completed', sequence_number: 10, response: responsesJson(textReply, body, meta) });
  });

  it('streams a namespaced function call', () => {
    const reply: EchoReply = { ...toolReply, namespace: 'ns' };
    const events = responsesEvents(reply, body, meta);
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
      id: 'F',
      type: 'function_call',
      status: 'in_progress',
      call_id: 'C',
      name: 'get_weather',
      namespace: 'ns',
      arguments: '',
    });
    const deltas = events.filter((e) => e.type === 'response.function_call_arguments.delta');
    expect(deltas.every((d) => d.item_id === 'F')).toBe(true);
    expect(deltas.map((d) => d.delta).join('')).toBe(reply.arguments);
    expect(events[6]).toMatchObject({ item_id: 'F', name: 'get_weather', arguments: reply.arguments });
    expect(events[7]?.item).toMatchObject({ status: 'completed', arguments: reply.arguments });
  });

  it('names every SSE event after its type', () => {
    for (const e of encodeSse('responses', textReply, body, meta)) expect(JSON.parse(e.data)).toMatchObject({ type: e.event });
  });
});

describe('messages encoding', () => {
  it('builds the message for text and for a tool call', () => {
    expect(messagesJson(textReply, {}, meta)).toMatchObject({
      id: 'R',
      type: 'message',
      role: 'assistant',
      model: 'echo-model',
      content: [{ type: 'text', text: 'Hello there, world' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 5 },
    });
    expect(messagesJson(toolReply, {}, meta)).toMatchObject({
      content: [{ type: 'tool_use', id: 'C', name: 'get_weather', input: { city: 'Paris' } }],
      stop_reason: 'tool_use',
    });
  });

  it('streams a tool call: start, ping, block, JSON fragments, delta, stop', () => {
    const events = messagesEvents(toolReply, {}, meta);
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]).toMatchObject({ message: { id: 'R', content: [], stop_reason: null, usage: { input_tokens: 12 } } });
    expect(events[2]).toEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'C', name: 'get_weather', input: {}, caller: { type: 'direct' } },
    });
    const json = events
      .filter((e) => e.type === 'content_block_delta')
      .map((e) => (e.delta as { type: string; partial_json: string }).partial_json)
      .join('');
    expect(JSON.parse(json)).toEqual({ city: 'Paris' });
    expect(events[8]).toMatchObject({ delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 4 } });
  });

  it('streams text deltas that concatenate to the text', () => {
    const events = messagesEvents(textReply, {}, meta);
    const text = events
      .filter((e) => e.type === 'content_block_delta')
      .map((e) => (e.delta as { type: string; text: string }).text)
      .join('');
    expect(text).toBe(textReply.text);
    expect(events.at(-2)).toMatchObject({ delta: { stop_reason: 'end_turn' } });
  });
});

const config: ProviderConfig = {
  id: 'echo',
  type: 'echo',
  baseUrl: '',
  apiKey: undefined,
  headers: {},
  protocols: new Set(PROTOCOLS),
  timeouts: { connectMs: 1000, headersMs: 1000, idleMs: 1000, totalMs: 1000 },
  retries: 0,
};

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

  it('answers count_tokens with the input estimate, for messages only', async () => {
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
