/**
 * What encodeResponse and encodeStream produce, read by the official openai SDK (6.x) exactly as a
 * caller would: `responses.create` (JSON and raw stream) and the `responses.stream()` helper, which is
 * strict about event order, ids and the final output list. The stream and the JSON answer must agree.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnswerServer, type AnswerServer } from '../../../../test/helpers/answer-server.js';
import type * as Ir from '../../../translate/ir.js';
import { accumulateEvents, responseToEvents } from '../../../translate/common/ir-stream.js';
import type { Json } from '../../../translate/types.js';
import { responsesCodec } from './codec.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';

const ctx = (): Ir.TranslateContext => translateContext({
  caller: 'responses',
  upstream: 'messages',
  requestedModel: 'gpt-test',
  upstreamModel: 'claude-up',
  upstreamDialect: 'anthropic',
});

const usage: Ir.Usage = { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 1000, cacheWriteTokens: 100, reasoningTokens: 30 };
const answer = (content: Ir.AssistantPart[], stopReason: Ir.StopReason = 'end'): Ir.Response => ({
  id: 'resp_up1',
  model: 'claude-up',
  created: 1_700_000_000,
  content,
  stopReason,
  usage,
});

const cases: Record<string, Ir.Response> = {
  text: answer([{ type: 'text', text: 'Hello, ' }, { type: 'text', text: 'world ✓' }]),
  'Claude thinking, then text': answer([
    { type: 'reasoning', text: 'The user greets me.', signature: 'EqQBCkgIAhAB' },
    { type: 'text', text: 'Hi!' },
  ]),
  'OpenAI reasoning with summary and text': answer([
    { type: 'reasoning', id: 'rs_up', text: 'raw chain', summary: ['**Plan**', 'Then answer.'], encrypted: 'gAAAA-enc' },
    { type: 'text', text: 'Done.' },
  ]),
  'redacted thinking': answer([{ type: 'reasoning', text: '', redacted: 'EmwKAhgB' }, { type: 'text', text: 'ok' }]),
  'one tool call': answer(
    [
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call', id: 'toolu_01', name: 'get_weather', arguments: '{"city":"Paris"}', kind: 'function' },
    ],
    'tool_calls',
  ),
  'parallel calls: namespace, plain, custom': answer(
    [
      { type: 'tool_call', id: 'call_a', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{"task":"x"}', kind: 'function' },
      { type: 'tool_call', id: 'call_b', name: 'exec_command', arguments: '{"cmd":"ls"}', kind: 'function', itemId: 'fc_keep' },
      { type: 'tool_call', id: 'call_c', name: 'exec', namespace: 'functions', arguments: 'console.log("hi")', kind: 'custom' },
    ],
    'tool_calls',
  ),
  'max tokens': answer([{ type: 'text', text: 'Once upon a' }], 'max_tokens'),
  refusal: answer([{ type: 'refusal', text: "I can't help with that." }], 'refusal'),
  'content filter': answer([{ type: 'text', text: 'Partial' }], 'content_filter'),
  'empty answer': answer([]),
};

const params = { model: 'gpt-test', input: 'hi', instructions: 'Be nice.', tools: [], metadata: { a: 'b' }, temperature: 0.3 };
const callerBody: Json = params;

const KNOWN = [
  'response.created',
  'response.in_progress',
  'response.output_item.added',
  'response.output_item.done',
  'response.content_part.added',
  'response.content_part.done',
  'response.output_text.delta',
  'response.output_text.done',
  'response.refusal.delta',
  'response.refusal.done',
  'response.function_call_arguments.delta',
  'response.function_call_arguments.done',
  'response.custom_tool_call_input.delta',
  'response.custom_tool_call_input.done',
  'response.reasoning_summary_part.added',
  'response.reasoning_summary_part.done',
  'response.reasoning_summary_text.delta',
  'response.reasoning_summary_text.done',
  'response.reasoning_text.delta',
  'response.reasoning_text.done',
  'response.completed',
  'response.incomplete',
];

let current: Ir.StreamEvent[] = [];
let server: AnswerServer;
let client: OpenAI;

beforeAll(async () => {
  server = await startAnswerServer((path, body) => {
    if (path !== '/v1/responses') return { status: 404, body: '{}' };
    const request = body as Json;
    if (request.stream === true) {
      const encoder = responsesCodec.encodeStream(ctx(), request);
      return { headers: { 'content-type': 'text/event-stream' }, body: current.map((e) => encoder.push(e)).join('') + encoder.end() };
    }
    const json = responsesCodec.encodeResponse(accumulateEvents(current), ctx(), request);
    return { body: JSON.stringify(json) };
  });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'x', maxRetries: 0 });
});
afterAll(() => server.close());

/** Fields the SDK's stream helper adds (`parsed`, `parsed_arguments`, `output_parsed`) are not on the wire. */
function wire(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (k, v: unknown) => (k === 'parsed' || k === 'parsed_arguments' || k === 'output_parsed' ? undefined : v)));
}

/** The answer to `response` three ways: JSON, raw stream events, and the stream helper's final response. */
async function allThree(response: Ir.Response) {
  current = responseToEvents(response);
  const json = await client.responses.create(params);
  const raw: Json[] = [];
  const stream = await client.responses.create({ ...params, stream: true });
  for await (const ev of stream) raw.push(ev as unknown as Json);
  const final = await client.responses.stream(params).finalResponse();
  return { json, raw, final };
}

describe('openai SDK reads encodeResponse and encodeStream', () => {
  it.each(Object.keys(cases))('%s: stream and JSON agree, events well-formed', async (name) => {
    const response = cases[name]!;
    const { json, raw, final } = await allThree(response);

    // Stream/non-stream agreement: what the helper accumulated equals the JSON answer.
    expect(wire(final)).toEqual(wire(json));
    expect(final.output_text).toBe(json.output_text);

    // The raw stream: response.created first, numbered from 0, one id, every added item done and listed.
    expect(raw[0]!.type).toBe('response.created');
    expect(raw[1]!.type).toBe('response.in_progress');
    expect(raw.map((e) => e.sequence_number)).toEqual(raw.map((_, i) => i));
    const last = raw[raw.length - 1]!;
    expect(last.type).toBe(json.status === 'completed' ? 'response.completed' : 'response.incomplete');
    const ids = new Set(raw.filter((e) => isRecord(e.response)).map((e) => (e.response as Json).id));
    expect([...ids]).toEqual([json.id]);
    const added = raw.filter((e) => e.type === 'response.output_item.added').map((e) => e.output_index);
    const done = raw.filter((e) => e.type === 'response.output_item.done');
    expect(done.map((e) => e.output_index)).toEqual(added);
    expect(done.map((e) => e.item)).toEqual((last.response as Json).output);
    expect(added).toEqual(json.output.map((_, i) => i));
    // The 7.x accumulator throws on event types it does not know; text deltas need logprobs.
    for (const e of raw) expect(KNOWN).toContain(e.type);
    for (const e of raw.filter((x) => x.type === 'response.output_text.delta' || x.type === 'response.output_text.done')) {
      expect(e.logprobs).toEqual([]);
    }
  });

  it('text: one message item with two output_text parts; echoed request fields; usage', async () => {
    const { json } = await allThree(cases.text!);
    expect(json.output_text).toBe('Hello, world ✓');
    expect(json).toMatchObject({
      id: 'resp_up1',
      object: 'response',
      created_at: 1_700_000_000,
      status: 'completed',
      model: 'gpt-test',
      error: null,
      incomplete_details: null,
      instructions: 'Be nice.',
      metadata: { a: 'b' },
      temperature: 0.3,
      top_p: null,
      tool_choice: 'auto',
      tools: [],
      parallel_tool_calls: true,
      store: false,
      usage: {
        input_tokens: 1200,
        input_tokens_details: { cached_tokens: 1000, cache_write_tokens: 100 },
        output_tokens: 80,
        output_tokens_details: { reasoning_tokens: 30 },
        total_tokens: 1280,
      },
    });
    expect(json.output).toEqual([
      {
        id: 'msg_test',
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [
          { type: 'output_text', text: 'Hello, ', annotations: [] },
          { type: 'output_text', text: 'world ✓', annotations: [] },
        ],
      },
    ]);
  });

  it('Claude thinking: shown as the summary, signature carried in encrypted_content', async () => {
    const { json } = await allThree(cases['Claude thinking, then text']!);
    expect(json.output[0]).toEqual({
      id: 'rs_test',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'The user greets me.' }],
      encrypted_content: 'anthropic-signature:EqQBCkgIAhAB',
      status: 'completed',
    });
    expect(json.output_text).toBe('Hi!');
  });

  it('OpenAI reasoning: summary parts, reasoning text as content, encrypted content and id kept', async () => {
    const { json, raw } = await allThree(cases['OpenAI reasoning with summary and text']!);
    expect(json.output[0]).toEqual({
      id: 'rs_up',
      type: 'reasoning',
      summary: [
        { type: 'summary_text', text: '**Plan**' },
        { type: 'summary_text', text: 'Then answer.' },
      ],
      content: [{ type: 'reasoning_text', text: 'raw chain' }],
      encrypted_content: 'gAAAA-enc',
      status: 'completed',
    });
    expect(raw.filter((e) => e.type === 'response.reasoning_summary_part.added').map((e) => e.summary_index)).toEqual([0, 1]);
    expect(raw.filter((e) => e.type === 'response.reasoning_text.delta').map((e) => e.delta)).toEqual(['raw chain']);
  });

  it('tool calls: function_call items with call_id, fc_ item ids in the argument deltas, namespace and custom', async () => {
    const { json, raw } = await allThree(cases['parallel calls: namespace, plain, custom']!);
    expect(json.output).toEqual([
      { id: 'fc_test', type: 'function_call', call_id: 'call_a', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{"task":"x"}', status: 'completed' },
      { id: 'fc_keep', type: 'function_call', call_id: 'call_b', name: 'exec_command', arguments: '{"cmd":"ls"}', status: 'completed' },
      { id: 'ctc_test', type: 'custom_tool_call', call_id: 'call_c', name: 'exec', namespace: 'functions', input: 'console.log("hi")', status: 'completed' },
    ]);
    expect(raw.filter((e) => e.type === 'response.function_call_arguments.delta').map((e) => e.item_id)).toEqual(['fc_test', 'fc_keep']);
    expect(raw.find((e) => e.type === 'response.function_call_arguments.done')).toMatchObject({ name: 'spawn_agent', arguments: '{"task":"x"}' });
    expect(raw.find((e) => e.type === 'response.custom_tool_call_input.done')).toMatchObject({ item_id: 'ctc_test', input: 'console.log("hi")' });
    expect(json.status).toBe('completed');
  });

  it.each([
    ['max tokens', 'max_output_tokens'],
    ['content filter', 'content_filter'],
  ])('%s: status incomplete with its reason', async (name, reason) => {
    const { json, final } = await allThree(cases[name]!);
    expect(json.status).toBe('incomplete');
    expect(json.incomplete_details).toEqual({ reason });
    expect(final.status).toBe('incomplete');
  });

  it('refusal: a refusal part, not output_text', async () => {
    const { json, raw } = await allThree(cases.refusal!);
    expect(json.output_text).toBe('');
    expect(json.output[0]).toMatchObject({ type: 'message', content: [{ type: 'refusal', refusal: "I can't help with that." }] });
    expect(raw.map((e) => e.type)).toContain('response.refusal.delta');
  });
});

describe('openai SDK and a mid-stream error', () => {
  const events: Ir.StreamEvent[] = [
    { type: 'start', id: 'resp_err', model: 'claude-up', created: 1_700_000_000 },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'block_delta', index: 0, delta: { type: 'text', text: 'Partial' } },
    { type: 'error', message: 'Overloaded', errorType: 'overloaded_error' },
  ];

  it('emits the error event with flat and nested fields, then response.failed, then nothing', () => {
    const encoder = responsesCodec.encodeStream(ctx(), callerBody);
    const text = events.map((e) => encoder.push(e)).join('') + encoder.push({ type: 'finish', stopReason: 'end', usage }) + encoder.end();
    const frames = text.trim().split('\n\n').map((f) => JSON.parse(f.split('\n')[1]!.slice('data: '.length)) as Json);
    const types = frames.map((f) => f.type);
    expect(types.slice(-2)).toEqual(['error', 'response.failed']);
    expect(frames.at(-2)).toMatchObject({
      code: 'server_error',
      message: 'Overloaded',
      param: null,
      error: { type: 'overloaded_error', code: 'server_error', message: 'Overloaded', param: null },
    });
    expect(frames.at(-1)).toMatchObject({ response: { id: 'resp_err', status: 'failed', error: { code: 'server_error', message: 'Overloaded' } } });
  });

  it('raw iteration raises', async () => {
    current = events;
    const stream = await client.responses.create({ model: 'gpt-test', input: 'hi', stream: true });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const ev of stream) seen.push(ev.type);
      })(),
    ).rejects.toThrow(/Overloaded/);
    expect(seen).toContain('response.output_text.delta');
  });

  it('the stream helper rejects', async () => {
    current = events;
    await expect(client.responses.stream({ model: 'gpt-test', input: 'hi' }).finalResponse()).rejects.toThrow(/Overloaded/);
  });
});

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
