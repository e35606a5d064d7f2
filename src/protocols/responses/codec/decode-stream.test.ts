/**
 * decodeStream and decodeResponse on OpenAI Responses answers: recorded-style SSE fixtures
 * (fixtures/*.sse), small inline streams for the odd cases, and this codec's own encoder output.
 * For each exchange the folded stream must equal the decoded JSON answer, however the bytes are split.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../errors.js';
import { createSseDecoder } from '../../../sse/parse.js';
import type * as Ir from '../../../translate/ir.js';
import { accumulateEvents, responseToEvents } from '../../../translate/common/ir-stream.js';
import type { Json } from '../../../translate/types.js';
import { responsesCodec } from './codec.js';

const ctx = (toolNames: [string, Ir.CallerTool][] = []): Ir.TranslateContext => ({
  caller: 'messages',
  upstream: 'responses',
  requestedModel: 'claude-test',
  upstreamModel: 'gpt-up',
  upstreamDialect: 'openai',
  now: () => 1_700_000_000_000,
  newId: (p) => `${p}test`,
  warnings: [],
  toolNames: new Map(toolNames),
});

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

/** SSE text, cut into chunks at `cuts`, through the SSE parser and decodeStream. */
function decodeSse(text: string, c: Ir.TranslateContext = ctx(), cuts: number[] = []): Ir.StreamEvent[] {
  const bytes = Buffer.from(text);
  const sse = createSseDecoder();
  const decoder = responsesCodec.decodeStream(c);
  const out: Ir.StreamEvent[] = [];
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    for (const ev of sse.push(bytes.subarray(from, at))) out.push(...decoder.push(ev));
    from = at;
  }
  for (const ev of sse.end()) out.push(...decoder.push(ev));
  out.push(...decoder.end());
  return out;
}

/** The final Response of a fixture (its `response.completed` / `response.incomplete`). */
function finalResponse(text: string): Json {
  const sse = createSseDecoder();
  const events = [...sse.push(text), ...sse.end()].map((e) => JSON.parse(e.data) as Json);
  const last = events.findLast((e) => e.type === 'response.completed' || e.type === 'response.incomplete');
  return last!.response as Json;
}

const FIXTURES = ['text.sse', 'reasoning-parallel-tools.sse', 'max-tokens-unnamed.sse', 'custom-tool-call.sse', 'refusal-web-search.sse'];
const usageOf = (inputTokens: number, outputTokens: number, extra: Partial<Ir.Usage> = {}): Ir.Usage => ({ inputTokens, outputTokens, ...extra });

describe('decodeStream on recorded-style streams', () => {
  it.each(FIXTURES)('%s: the folded stream equals decodeResponse of the final response, warnings too', (name) => {
    const text = fixture(name);
    const streamCtx = ctx();
    const jsonCtx = ctx();
    expect(accumulateEvents(decodeSse(text, streamCtx))).toEqual(responsesCodec.decodeResponse(finalResponse(text), jsonCtx));
    expect(streamCtx.warnings).toEqual(jsonCtx.warnings);
  });

  it.each([...FIXTURES, 'error-mid-stream.sse'])('%s: split at every byte, and with CRLF line ends, gives the same events', (name) => {
    const text = fixture(name);
    const whole = decodeSse(text);
    const length = Buffer.byteLength(text);
    for (let at = 1; at < length; at++) expect(decodeSse(text, ctx(), [at])).toEqual(whole);
    expect(decodeSse(text.replaceAll('\n', '\r\n'), ctx(), [7, 100, 101, 2000])).toEqual(whole);
  });

  it('text: comments, keepalive and unknown events ignored; usage with cache reads', () => {
    const events = decodeSse(fixture('text.sse'));
    expect(events).toEqual([
      { type: 'start', id: 'resp_0a1b2c3d4e5f60718293a4b5c6d7e8f9', model: 'gpt-5-2025-08-07', created: 1755001234 },
      { type: 'block_start', index: 0, block: { type: 'text' } },
      ...['Hello', '! How can', ' I help ', 'you today? ✓'].map((text) => ({ type: 'block_delta', index: 0, delta: { type: 'text', text } })),
      { type: 'block_stop', index: 0 },
      { type: 'finish', stopReason: 'end', usage: usageOf(2345, 12, { cacheReadTokens: 2048 }) },
    ]);
  });

  it('reasoning then parallel calls: summary parts, encrypted content at the end of the block, call and item ids', () => {
    const events = decodeSse(fixture('reasoning-parallel-tools.sse'));
    const reasoningEnd = events.findIndex((e) => e.type === 'block_stop');
    expect(events[reasoningEnd - 1]).toEqual({ type: 'block_delta', index: 0, delta: { type: 'encrypted', encrypted: 'gAAAAABo1-fake-encrypted-reasoning-blob-Zm9vYmFy==' } });
    expect(accumulateEvents(events)).toEqual({
      id: 'resp_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
      model: 'gpt-5-2025-08-07',
      created: 1755001234,
      content: [
        {
          type: 'reasoning',
          id: 'rs_0a1b2c3d4e5f60718293a4b5c6d7e8f9bb',
          text: '',
          summary: ["**Checking the weather**\n\nThe user wants weather for two cities; I'll call the tool twice.", '**Parallel calls**\n\nBoth lookups are independent.'],
          encrypted: 'gAAAAABo1-fake-encrypted-reasoning-blob-Zm9vYmFy==',
        },
        { type: 'tool_call', id: 'call_Qx8Kp2', itemId: 'fc_0a1b2c3d4e5f60718293a4b5c6d7e8f9c1', name: 'get_weather', arguments: '{"city":"Paris"}', kind: 'function' },
        { type: 'tool_call', id: 'call_Zr4Lm9', itemId: 'fc_0a1b2c3d4e5f60718293a4b5c6d7e8f9c2', name: 'get_weather', arguments: '{"city":"Tokyo"}', kind: 'function' },
      ],
      stopReason: 'tool_calls',
      usage: usageOf(812, 301, { reasoningTokens: 256 }),
    });
  });

  it('max tokens (no event: lines): incomplete → max_tokens', () => {
    const r = accumulateEvents(decodeSse(fixture('max-tokens-unnamed.sse')));
    expect(r.stopReason).toBe('max_tokens');
    expect(r.content).toEqual([{ type: 'text', text: 'Once upon a time, there was a' }]);
  });

  it('custom tool call with a namespace: kind custom, raw input', () => {
    const r = accumulateEvents(decodeSse(fixture('custom-tool-call.sse')));
    expect(r.content).toEqual([
      { type: 'text', text: 'Running it.' },
      {
        type: 'tool_call',
        id: 'call_Cu5tom1',
        itemId: 'ctc_0a1b2c3d4e5f60718293a4b5c6d7e8f901',
        name: 'exec',
        namespace: 'functions',
        arguments: 'const r = await tools.exec_command({cmd: "echo hi"});\nconsole.log(r);',
        kind: 'custom',
      },
    ]);
    expect(r.usage).toEqual(usageOf(5000, 40, { cacheReadTokens: 4096 }));
  });

  it('refusal after a hosted web search: the search is skipped and listed', () => {
    const c = ctx();
    const r = accumulateEvents(decodeSse(fixture('refusal-web-search.sse'), c));
    expect(r.content).toEqual([{ type: 'refusal', text: "I can't help with that." }]);
    expect(r.stopReason).toBe('end');
    expect(c.warnings).toEqual(['web_search_call output']);
  });

  it('an in-band error (nested shape) ends the stream; the response.failed after it adds nothing', () => {
    const events = decodeSse(fixture('error-mid-stream.sse'));
    expect(events.at(-1)).toEqual({
      type: 'error',
      message: 'The server had an error while processing your request. Sorry about that!',
      errorType: 'server_error',
    });
    expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
    expect(events.map((e) => e.type)).toEqual(['start', 'block_start', 'block_delta', 'error']);
  });
});

/** SSE text from `[type, data]` pairs, named and numbered as OpenAI sends them. */
const sse = (...events: [string, Json][]) =>
  events.map(([type, data], i) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: i, ...data })}\n\n`).join('');
const created = { response: { id: 'resp_x', object: 'response', created_at: 1, model: 'gpt-up', status: 'in_progress', output: [] } };
const completed = (output: Json[], status = 'completed', extra: Json = {}) => ({
  response: { id: 'resp_x', object: 'response', created_at: 1, model: 'gpt-up', status, output, usage: { input_tokens: 5, output_tokens: 3 }, ...extra },
});

describe('decodeStream: odd streams', () => {
  it('the flat error shape, and response.failed alone', () => {
    expect(decodeSse(sse(['response.created', created], ['error', { code: 'rate_limit_exceeded', message: 'Slow down', param: null }])).at(-1)).toEqual({
      type: 'error',
      message: 'Slow down',
      errorType: 'rate_limit_exceeded',
    });
    const failed = { response: { ...created.response, status: 'failed', error: { code: 'server_error', message: 'Boom' } } };
    expect(decodeSse(sse(['response.created', created], ['response.failed', failed]))).toEqual([
      { type: 'start', id: 'resp_x', model: 'gpt-up', created: 1 },
      { type: 'error', message: 'Boom', errorType: 'server_error' },
    ]);
  });

  it('items shown only in response.completed are still decoded', () => {
    const output = [
      { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'whole', annotations: [] }] },
      { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}', status: 'completed' },
    ];
    const events = decodeSse(sse(['response.created', created], ['response.completed', completed(output)]));
    expect(accumulateEvents(events)).toEqual(responsesCodec.decodeResponse(completed(output).response, ctx()));
    expect(accumulateEvents(events).stopReason).toBe('tool_calls');
  });

  it('deltas without their *.added events, and a stream that starts with in_progress', () => {
    const text = sse(
      ['response.in_progress', created],
      ['response.output_item.added', { output_index: 0, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } }],
      ['response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'a' }],
      ['response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'b' }],
      ['response.completed', completed([{ id: 'msg_1', type: 'message', content: [{ type: 'output_text', text: 'abc' }] }])],
    );
    // The final item says more than the deltas did: the rest is emitted before the block ends.
    expect(accumulateEvents(decodeSse(text)).content).toEqual([{ type: 'text', text: 'abc' }]);
  });

  it('annotations are dropped with the same warning as in a complete response', () => {
    const done = { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'See [1]', annotations: [{ type: 'url_citation', url: 'https://x', start_index: 4, end_index: 7, title: 'x' }] }] };
    const text = sse(
      ['response.created', created],
      ['response.output_item.added', { output_index: 0, item: { ...done, status: 'in_progress', content: [] } }],
      ['response.content_part.added', { item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }],
      ['response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'See [1]' }],
      ['response.output_text.annotation.added', { item_id: 'msg_1', output_index: 0, content_index: 0, annotation_index: 0, annotation: done.content[0]!.annotations[0] }],
      ['response.output_item.done', { output_index: 0, item: done }],
      ['response.completed', completed([done])],
    );
    const c = ctx();
    expect(accumulateEvents(decodeSse(text, c)).content).toEqual([{ type: 'text', text: 'See [1]' }]);
    expect(c.warnings).toEqual(['annotations']);
  });

  it('names map back to the caller: flattened namespaces, and a custom tool sent as a function stand-in', () => {
    const names: [string, Ir.CallerTool][] = [
      ['multi_agent_v1__spawn_agent', { name: 'spawn_agent', namespace: 'multi_agent_v1', kind: 'function' }],
      ['functions__exec', { name: 'exec', namespace: 'functions', kind: 'custom' }],
    ];
    const fcAdded = (i: number, id: string, name: string) => ({ output_index: i, item: { id, type: 'function_call', call_id: `call_${i}`, name, arguments: '', status: 'in_progress' } });
    const fcDone = (i: number, id: string, name: string, args: string) => ({ output_index: i, item: { id, type: 'function_call', call_id: `call_${i}`, name, arguments: args, status: 'completed' } });
    const args = JSON.stringify({ input: 'console.log("x")' });
    const text = sse(
      ['response.created', created],
      ['response.output_item.added', fcAdded(0, 'fc_a', 'multi_agent_v1__spawn_agent')],
      ['response.function_call_arguments.delta', { item_id: 'fc_a', output_index: 0, delta: '{}' }],
      ['response.output_item.done', fcDone(0, 'fc_a', 'multi_agent_v1__spawn_agent', '{}')],
      ['response.output_item.added', fcAdded(1, 'fc_b', 'functions__exec')],
      ['response.function_call_arguments.delta', { item_id: 'fc_b', output_index: 1, delta: args.slice(0, 9) }],
      ['response.function_call_arguments.delta', { item_id: 'fc_b', output_index: 1, delta: args.slice(9) }],
      ['response.function_call_arguments.done', { item_id: 'fc_b', output_index: 1, arguments: args }],
      ['response.output_item.done', fcDone(1, 'fc_b', 'functions__exec', args)],
      ['response.completed', completed([fcDone(0, 'fc_a', 'multi_agent_v1__spawn_agent', '{}').item, fcDone(1, 'fc_b', 'functions__exec', args).item])],
    );
    const events = decodeSse(text, ctx(names));
    const expected: Ir.AssistantPart[] = [
      { type: 'tool_call', id: 'call_0', itemId: 'fc_a', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{}', kind: 'function' },
      { type: 'tool_call', id: 'call_1', itemId: 'fc_b', name: 'exec', namespace: 'functions', arguments: 'console.log("x")', kind: 'custom' },
    ];
    expect(accumulateEvents(events).content).toEqual(expected);
    // The stand-in's argument fragments are held back and sent once, as the raw input.
    expect(events.filter((e) => e.type === 'block_delta' && e.index === 1)).toEqual([
      { type: 'block_delta', index: 1, delta: { type: 'arguments', text: 'console.log("x")' } },
    ]);
    expect(responsesCodec.decodeResponse(completed([fcDone(0, 'fc_a', 'multi_agent_v1__spawn_agent', '{}').item, fcDone(1, 'fc_b', 'functions__exec', args).item]).response, ctx(names)).content).toEqual(expected);
  });
});

describe('decodeResponse', () => {
  it('a failed response is an upstream error', () => {
    const body = { id: 'resp_x', object: 'response', status: 'failed', output: [], error: { code: 'server_error', message: 'Boom' } };
    expect(() => responsesCodec.decodeResponse(body, ctx())).toThrow(GatewayError);
    try {
      responsesCodec.decodeResponse(body, ctx());
    } catch (e) {
      expect(e).toMatchObject({ kind: 'upstream_error', message: 'Boom', code: 'server_error' });
    }
  });

  it.each([
    [{ status: 'incomplete', incomplete_details: { reason: 'content_filter' } }, 'content_filter'],
    [{ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }, 'max_tokens'],
    [{ status: 'incomplete', incomplete_details: null }, 'max_tokens'],
    [{ status: 'completed' }, 'end'],
  ] as const)('%j → %s', (fields, stopReason) => {
    expect(responsesCodec.decodeResponse({ id: 'r', created_at: 1, model: 'm', output: [], ...fields }, ctx()).stopReason).toBe(stopReason);
  });

  it('reasoning text, annotations dropped with a warning, usage with cache writes', () => {
    const c = ctx();
    const r = responsesCodec.decodeResponse(
      {
        id: 'r',
        created_at: 1,
        model: 'm',
        status: 'completed',
        output: [
          { id: 'rs_1', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'step 1' }] },
          { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'See [1]', annotations: [{ type: 'url_citation', url: 'https://x' }] }] },
        ],
        usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 10, cache_write_tokens: 20 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 3 }, total_tokens: 107 },
      },
      c,
    );
    expect(r.content).toEqual([
      { type: 'reasoning', id: 'rs_1', text: 'step 1' },
      { type: 'text', text: 'See [1]' },
    ]);
    expect(r.usage).toEqual({ inputTokens: 100, outputTokens: 7, cacheReadTokens: 10, cacheWriteTokens: 20, reasoningTokens: 3 });
    expect(c.warnings).toEqual(['annotations']);
  });
});

describe('decodeStream on this codec’s own encoder output', () => {
  const usage: Ir.Usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 4, reasoningTokens: 2 };
  const R = (content: Ir.AssistantPart[], stopReason: Ir.StopReason = 'end'): Ir.Response => ({ id: 'resp_1', model: 'gpt-up', created: 1_700_000_000, content, stopReason, usage });
  const cases: [string, Ir.Response][] = [
    ['text and refusal', R([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }, { type: 'refusal', text: 'no' }])],
    ['reasoning with summary, text and encrypted', R([{ type: 'reasoning', id: 'rs_9', text: 'raw', summary: ['s1', 's2'], encrypted: 'E' }, { type: 'text', text: 'x' }])],
    ['Claude thinking', R([{ type: 'reasoning', text: 'hmm', signature: 'SIG' }, { type: 'text', text: 'x' }])],
    [
      'tool calls',
      R(
        [
          { type: 'tool_call', id: 'call_1', name: 'f', arguments: '{"a":1}', kind: 'function', namespace: 'ns' },
          { type: 'tool_call', id: 'call_2', name: 'g', arguments: 'raw input', kind: 'custom' },
        ],
        'tool_calls',
      ),
    ],
    ['max tokens', R([{ type: 'text', text: 'cut' }], 'max_tokens')],
  ];

  it.each(cases)('%s', (_name, response) => {
    const encoder = responsesCodec.encodeStream(ctx(), { model: 'claude-test' });
    const text = responseToEvents(response).map((e) => encoder.push(e)).join('') + encoder.end();
    const json = responsesCodec.encodeResponse(response, ctx(), { model: 'claude-test' });
    const fromStream = accumulateEvents(decodeSse(text));
    expect(fromStream).toEqual(responsesCodec.decodeResponse(json, ctx()));
    expect(fromStream.usage).toEqual(usage);
    expect(fromStream.stopReason).toBe(response.stopReason);
  });

  it('text and tool calls come back as they were (item ids added)', () => {
    for (const [, response] of cases.filter(([n]) => n === 'text and refusal' || n === 'tool calls')) {
      const json = responsesCodec.encodeResponse(response, ctx(), {});
      const back = responsesCodec.decodeResponse(json, ctx());
      expect(back.content.map((p) => (p.type === 'tool_call' ? { ...p, itemId: undefined } : p))).toEqual(
        response.content.map((p) => (p.type === 'tool_call' ? { ...p, itemId: undefined } : p)),
      );
    }
  });

  it('Claude thinking survives the trip to a Responses caller and back (signature in encrypted_content)', () => {
    const json = responsesCodec.encodeResponse(cases[2]![1], ctx(), {});
    // The caller replays its output items as input on the next turn.
    const replay = responsesCodec.decodeRequest({ model: 'm', input: [{ role: 'user', content: 'q' }, ...(json.output as Json[])] }, ctx());
    expect(replay.messages[1]!.content[0]).toEqual({ type: 'reasoning', text: 'hmm', signature: 'SIG' });
  });
});
