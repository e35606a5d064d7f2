/**
 * What encodeResponse and encodeStream produce, read by the official Anthropic SDKs (1.x and 0.x)
 * exactly as a client would, including the `.stream().finalMessage()` accumulator; and the
 * stream/non-stream agreement: for every IR response the accumulated stream equals the JSON answer.
 */
import Anthropic from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSseDecoder } from '#src/sse/parse.js';
import type * as Ir from '#src/translate/ir.js';
import { responseToEvents } from '#src/translate/common/ir-stream.js';
import type { Json } from '#src/translate/types.js';
import { startAnswerServer, type AnswerServer } from '../../../../test/helpers/answer-server.js';
import { messagesCodec } from './codec.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';

function ctx(): Ir.TranslateContext {
  return translateContext({
    caller: 'messages',
    upstream: 'chat',
    requestedModel: 'claude-caller',
    upstreamModel: 'gpt-up',
    upstreamDialect: 'openai',
  });
}

interface Exchange {
  readonly json: string;
  readonly sse: string;
  readonly jsonWarnings: string[];
  readonly sseWarnings: string[];
}

/** Scenario name (sent as the model) → the encoded answers. */
const exchanges = new Map<string, Exchange>();

function register(name: string, response: Ir.Response, events: Ir.StreamEvent[] = responseToEvents(response)): Exchange {
  const jsonCtx = ctx();
  const streamCtx = ctx();
  const json = JSON.stringify(messagesCodec.encodeResponse(response, jsonCtx, {}));
  const encoder = messagesCodec.encodeStream(streamCtx, {});
  const sse = events.map((e) => encoder.push(e)).join('') + encoder.end();
  const exchange = { json, sse, jsonWarnings: jsonCtx.warnings, sseWarnings: streamCtx.warnings };
  exchanges.set(name, exchange);
  return exchange;
}

let server: AnswerServer;
let sdk1: Anthropic;
let sdk0: Anthropic0;

beforeAll(async () => {
  server = await startAnswerServer((_path, body) => {
    const b = body as Json;
    const exchange = exchanges.get(String(b.model));
    if (!exchange) return { status: 404, body: '{}' };
    return b.stream === true ? { headers: { 'content-type': 'text/event-stream' }, body: exchange.sse } : { body: exchange.json };
  });
  sdk1 = new Anthropic({ baseURL: server.url, apiKey: 'x', maxRetries: 0 });
  sdk0 = new Anthropic0({ baseURL: server.url, apiKey: 'x', maxRetries: 0 });
});

afterAll(() => server.close());

const params = (model: string) => ({ model, max_tokens: 100, messages: [{ role: 'user' as const, content: 'hi' }] });
const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as Json;

const r = (content: Ir.AssistantPart[], extra: Partial<Ir.Response> = {}): Ir.Response => ({
  id: 'chatcmpl-up1',
  model: 'gpt-up',
  created: 1_700_000_000,
  content,
  stopReason: 'end',
  usage: { inputTokens: 50, outputTokens: 7 },
  ...extra,
});

const call = (id: string, args: string): Ir.ToolCallPart => ({ type: 'tool_call', id, name: 'get_weather', kind: 'function', arguments: args });

const SCENARIOS: [string, Ir.Response, (m: Json) => void][] = [
  [
    'text',
    r([{ type: 'text', text: 'Hello — world 👋' }]),
    (m) => {
      expect(m.content).toEqual([{ type: 'text', text: 'Hello — world 👋' }]);
      expect(m.stop_reason).toBe('end_turn');
      expect(m.model).toBe('claude-caller');
      expect(m.id).toBe('msg_chatcmpl-up1');
    },
  ],
  [
    'reasoning',
    r(
      [
        { type: 'reasoning', text: 'Let me think.', signature: 'c2ln/+==' },
        { type: 'reasoning', text: '', redacted: 'cmVkYWN0ZWQ=' },
        { type: 'text', text: 'Done.' },
      ],
      { usage: { inputTokens: 50, outputTokens: 30, reasoningTokens: 20 } },
    ),
    (m) => {
      expect(m.content).toEqual([
        { type: 'thinking', thinking: 'Let me think.', signature: 'c2ln/+==' },
        { type: 'redacted_thinking', data: 'cmVkYWN0ZWQ=' },
        { type: 'text', text: 'Done.' },
      ]);
      expect((m.usage as Json).output_tokens_details).toEqual({ thinking_tokens: 20 });
    },
  ],
  [
    'unsigned-reasoning',
    r([
      { type: 'reasoning', text: 'OpenAI summary', summary: ['OpenAI summary'], encrypted: 'gAAAA', id: 'rs_1' },
      { type: 'reasoning', text: 'reasoning_content text' },
      { type: 'text', text: 'Answer.' },
    ]),
    (m) => {
      // never shown as text, never as an (invalid) unsigned thinking block
      expect(m.content).toEqual([{ type: 'text', text: 'Answer.' }]);
    },
  ],
  [
    'one-tool-call',
    r([call('call_abc', '{"city":"Paris"}')], { stopReason: 'tool_calls' }),
    (m) => {
      expect(m.content).toEqual([{ type: 'tool_use', id: 'call_abc', name: 'get_weather', input: { city: 'Paris' }, caller: { type: 'direct' } }]);
      expect(m.stop_reason).toBe('tool_use');
    },
  ],
  [
    'parallel-tool-calls',
    r(
      [
        { type: 'text', text: '' },
        { type: 'text', text: 'Checking both.' },
        call('call_1', '{"city":"Paris","days":[1,2],"opts":{"unit":"c","alerts":true,"x":null}}'),
        call('call_2', '{"city":"Oslo"}'),
        call('call_3', ''),
      ],
      // some servers say `stop` with tool calls; the caller still needs tool_use
      { stopReason: 'end' },
    ),
    (m) => {
      expect((m.content as Json[]).map((b) => b.type)).toEqual(['text', 'tool_use', 'tool_use', 'tool_use']);
      expect((m.content as Json[])[1]!.input).toEqual({ city: 'Paris', days: [1, 2], opts: { unit: 'c', alerts: true, x: null } });
      expect((m.content as Json[])[3]!.input).toEqual({});
      expect(m.stop_reason).toBe('tool_use');
    },
  ],
  [
    'max-tokens',
    r([{ type: 'text', text: 'Once upon a' }], { stopReason: 'max_tokens' }),
    (m) => expect(m.stop_reason).toBe('max_tokens'),
  ],
  [
    'refusal',
    r([{ type: 'refusal', text: "I can't help with that." }], { stopReason: 'content_filter' }),
    (m) => {
      expect(m.content).toEqual([{ type: 'text', text: "I can't help with that." }]);
      expect(m.stop_reason).toBe('refusal');
    },
  ],
  [
    'refusal-natural-end',
    r([{ type: 'refusal', text: 'No.' }]),
    (m) => expect(m.stop_reason).toBe('refusal'),
  ],
  [
    'stop-sequence',
    r([{ type: 'text', text: 'a b' }], { stopReason: 'stop_sequence', stopSequence: 'END' }),
    (m) => {
      expect(m.stop_reason).toBe('stop_sequence');
      expect(m.stop_sequence).toBe('END');
    },
  ],
  [
    'cache-usage',
    r([{ type: 'text', text: 'ok' }], { usage: { inputTokens: 10_000, outputTokens: 12, cacheReadTokens: 8000, cacheWriteTokens: 1500 } }),
    (m) => {
      expect(m.usage).toMatchObject({ input_tokens: 500, output_tokens: 12, cache_read_input_tokens: 8000, cache_creation_input_tokens: 1500 });
    },
  ],
  [
    'invalid-arguments',
    r([call('call_bad', 'city=Paris')], { stopReason: 'tool_calls' }),
    (m) => expect((m.content as Json[])[0]!.input).toEqual({ _raw: 'city=Paris' }),
  ],
  [
    'pause-and-context',
    r([{ type: 'text', text: 'x' }], { stopReason: 'context_window' }),
    (m) => expect(m.stop_reason).toBe('model_context_window_exceeded'),
  ],
];

for (const [name, response] of SCENARIOS) register(name, response);

describe.each([
  ['sdk 1.x', () => sdk1],
  ['sdk 0.x', () => sdk0 as unknown as Anthropic],
])('%s', (_label, client) => {
  it.each(SCENARIOS)('%s: the JSON answer parses as expected and the stream accumulates to it', async (name, _response, check) => {
    const parsed = plain(await client().messages.create(params(name)));
    check(parsed);
    // `parsed_output` is the stream helper's own addition (structured-output parsing), not wire data.
    const { parsed_output: _parsed, ...streamed } = plain(await client().messages.stream(params(name)).finalMessage());
    expect(streamed).toEqual(parsed);
  });

  it('an error mid-stream makes the SDK raise', async () => {
    register('mid-stream-error', r([]), [
      { type: 'start', id: 'x', model: 'm', created: 1 },
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'block_delta', index: 0, delta: { type: 'text', text: 'Partial' } },
      { type: 'error', message: 'upstream went away', errorType: 'server_error' },
      { type: 'finish', stopReason: 'end', usage: { inputTokens: 1, outputTokens: 1 } },
    ]);
    await expect(client().messages.stream(params('mid-stream-error')).finalMessage()).rejects.toThrow(/upstream went away/);
    const raw = await client().messages.create({ ...params('mid-stream-error'), stream: true });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of raw) seen.push(event.type);
      })(),
    ).rejects.toThrow(/upstream went away/);
    expect(seen).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
  });
});

describe('the stream on the wire', () => {
  const events = (sse: string) => {
    const decoder = createSseDecoder();
    return [...decoder.push(sse), ...decoder.end()];
  };

  it.each(SCENARIOS.map(([name]) => name))('%s: named events, contiguous indexes, JSON-object inputs', (name) => {
    const messages = events(exchanges.get(name)!.sse);
    const types = messages.map((m) => m.event);
    for (const m of messages) expect(m.event).toBe((JSON.parse(m.data) as Json).type);
    expect(types.slice(0, 2)).toEqual(['message_start', 'ping']);
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    const starts = messages.filter((m) => m.event === 'content_block_start').map((m) => (JSON.parse(m.data) as Json).index);
    expect(starts).toEqual(starts.map((_, i) => i));
    // every tool_use's fragments concatenate to a JSON object
    for (const index of starts) {
      const json = messages
        .filter((m) => m.event === 'content_block_delta' && (JSON.parse(m.data) as Json).index === index)
        .map((m) => ((JSON.parse(m.data) as Json).delta as Json).partial_json)
        .filter((p): p is string => typeof p === 'string')
        .join('');
      if (json !== '') expect(JSON.parse(json)).toBeTypeOf('object');
    }
  });

  it('warnings: unsigned reasoning is reported once per encoder, the same in both forms', () => {
    const exchange = exchanges.get('unsigned-reasoning')!;
    expect(exchange.jsonWarnings).toEqual(['reasoning not carried']);
    expect(exchange.sseWarnings).toEqual(['reasoning not carried']);
  });

  it('message_start carries the input known at the start; message_delta the final counts', () => {
    const { sse } = register('usage-timing', r([{ type: 'text', text: 'x' }]), [
      { type: 'start', id: 'msg_9', model: 'm', created: 1, usage: { inputTokens: 40, cacheReadTokens: 30 } },
      { type: 'finish', stopReason: 'end', usage: { inputTokens: 45, outputTokens: 3, cacheReadTokens: 30 } },
    ]);
    const [start, , delta] = events(sse).map((m) => JSON.parse(m.data) as Json);
    expect(((start!.message as Json).usage as Json)).toMatchObject({ input_tokens: 10, output_tokens: 0, cache_read_input_tokens: 30 });
    expect(delta!.usage).toEqual({
      input_tokens: 15,
      output_tokens: 3,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 30,
      output_tokens_details: null,
      server_tool_use: null,
    });
  });

  it('tool arguments stream as they come; JSON cut short is closed so it still parses', async () => {
    const name = 'truncated-arguments';
    const { sse, sseWarnings } = register(name, r([]), [
      { type: 'start', id: 'msg_t', model: 'm', created: 1 },
      { type: 'block_start', index: 0, block: { type: 'tool_call', id: 'call_w', name: 'write_file', kind: 'function' } },
      { type: 'block_delta', index: 0, delta: { type: 'arguments', text: '{"path": "a.txt", ' } },
      { type: 'block_delta', index: 0, delta: { type: 'arguments', text: '"content": "hel' } },
      { type: 'block_stop', index: 0 },
      { type: 'finish', stopReason: 'max_tokens', usage: { inputTokens: 5, outputTokens: 100 } },
    ]);
    const fragments = events(sse)
      .filter((m) => m.event === 'content_block_delta')
      .map((m) => ((JSON.parse(m.data) as Json).delta as Json).partial_json);
    expect(fragments).toEqual(['{"path": "a.txt", ', '"content": "hel', '"}']);
    expect(sseWarnings).toEqual(['invalid tool-call JSON closed']);
    const message = await sdk1.messages.stream(params(name)).finalMessage();
    expect(plain(message.content)).toEqual([{ type: 'tool_use', id: 'call_w', name: 'write_file', input: { path: 'a.txt', content: 'hel' }, caller: { type: 'direct' } }]);
    expect(message.stop_reason).toBe('max_tokens');
  });

  it('nothing after an error; an empty text block is never opened', () => {
    const encoder = messagesCodec.encodeStream(ctx(), {});
    const out = [
      encoder.push({ type: 'start', id: 'msg_e', model: 'm', created: 1 }),
      encoder.push({ type: 'block_start', index: 0, block: { type: 'text' } }),
      encoder.push({ type: 'block_stop', index: 0 }),
      encoder.push({ type: 'error', message: 'boom', errorType: 'service_unavailable_error' }),
      encoder.push({ type: 'finish', stopReason: 'end', usage: { inputTokens: 1, outputTokens: 1 } }),
      encoder.end(),
    ];
    expect(out.slice(1, 3)).toEqual(['', '']);
    expect(out[3]).toBe('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"boom"}}\n\n');
    expect(out.slice(4)).toEqual(['', '']);
  });
});
