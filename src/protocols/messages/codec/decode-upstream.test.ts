/**
 * Messages upstream → IR: decodeResponse on message JSON, decodeStream on verbatim-looking SSE
 * (fixtures/), stream/JSON agreement, byte-split robustness, and our own encoder's output.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSseDecoder } from '#src/sse/parse.js';
import type * as Ir from '#src/translate/ir.js';
import { accumulateEvents, responseToEvents } from '#src/translate/common/ir-stream.js';
import type { Json } from '#src/translate/types.js';
import { messagesCodec } from './codec.js';

function ctx(toolNames: [string, Ir.CallerTool][] = []): Ir.TranslateContext {
  return {
    caller: 'chat',
    upstream: 'messages',
    requestedModel: 'gpt-test',
    upstreamModel: 'claude-up',
    upstreamDialect: 'anthropic',
    now: () => 1_700_000_000_000,
    newId: (p) => `${p}test`,
    warnings: [],
    toolNames: new Map(toolNames),
  };
}

const read = (name: string) => readFileSync(new URL(`fixtures/${name}`, import.meta.url));
const json = (name: string) => JSON.parse(read(name).toString('utf8')) as Json;

/** SSE bytes, cut into `chunks`, through our SSE parser and the stream decoder. */
function decodeSse(chunks: readonly Buffer[], c = ctx()): Ir.StreamEvent[] {
  const sse = createSseDecoder();
  const decoder = messagesCodec.decodeStream(c);
  const events: Ir.StreamEvent[] = [];
  for (const chunk of chunks) for (const e of sse.push(chunk)) events.push(...decoder.push(e));
  for (const e of sse.end()) events.push(...decoder.push(e));
  events.push(...decoder.end());
  return events;
}

/** Tool arguments compared as JSON values: a stream's fragments keep the upstream's spacing, `JSON.stringify(input)` does not. */
const normalise = (r: Ir.Response): Ir.Response => ({
  ...r,
  content: r.content.map((p) => (p.type === 'tool_call' && p.kind === 'function' ? { ...p, arguments: JSON.stringify(JSON.parse(p.arguments)) } : p)),
});

const PAIRS = ['text', 'tools', 'thinking', 'max-tokens', 'server-tools'] as const;

describe('decodeResponse', () => {
  it('text with cache usage', () => {
    expect(messagesCodec.decodeResponse(json('text.json'), ctx())).toEqual({
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      model: 'claude-sonnet-5-5',
      created: 1_700_000_000,
      content: [{ type: 'text', text: 'Hello! How can I help — today? 👋' }],
      stopReason: 'end',
      usage: { inputTokens: 472 + 1200 + 8000, outputTokens: 15, cacheReadTokens: 8000, cacheWriteTokens: 1200 },
    });
  });

  it('parallel tool calls', () => {
    const r = messagesCodec.decodeResponse(json('tools.json'), ctx());
    expect(r.stopReason).toBe('tool_calls');
    expect(r.content).toEqual([
      { type: 'text', text: "I'll check both cities." },
      { type: 'tool_call', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather', kind: 'function', arguments: '{"city":"Paris","unit":"c"}' },
      { type: 'tool_call', id: 'toolu_01AbCdEfGhIjKlMnOpQrStUv', name: 'get_weather', kind: 'function', arguments: '{"city":"Oslo","unit":"c"}' },
      { type: 'tool_call', id: 'toolu_01NoArgsNoArgsNoArgsNoAr', name: 'list_cities', kind: 'function', arguments: '{}' },
    ]);
    expect(r.usage).toEqual({ inputTokens: 650, outputTokens: 89 });
  });

  it('thinking with signature, redacted thinking, thinking tokens', () => {
    const r = messagesCodec.decodeResponse(json('thinking.json'), ctx());
    expect(r.content.slice(0, 2)).toEqual([
      {
        type: 'reasoning',
        text: 'The user wants me to run echo through the Bash tool.',
        signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds7SOWh0ZW1wXN0HWs/cRQZ3TgZ+9fJ/1IWZHk5ssGxAd8e6OnCyvM6VQaYsC0dmDZRIaME0BZ5pHBL',
      },
      { type: 'reasoning', text: '', redacted: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
    ]);
    expect(r.usage).toEqual({ inputTokens: 30012, outputTokens: 120, cacheReadTokens: 30000, reasoningTokens: 64 });
  });

  it('max_tokens; null cache counts', () => {
    const r = messagesCodec.decodeResponse(json('max-tokens.json'), ctx());
    expect(r.stopReason).toBe('max_tokens');
    expect(r.usage).toEqual({ inputTokens: 20, outputTokens: 10 });
  });

  it('server tool blocks skipped with warnings; stop sequence kept', () => {
    const c = ctx();
    const r = messagesCodec.decodeResponse(json('server-tools.json'), c);
    expect(r.content).toEqual([{ type: 'text', text: 'It is sunny. END' }]);
    expect(r.stopReason).toBe('stop_sequence');
    expect(r.stopSequence).toBe('END');
    expect(c.warnings).toEqual(['web_search tool (server)', 'server tool results', 'citations']);
  });

  it.each<[string, Ir.StopReason]>([
    ['end_turn', 'end'],
    ['max_tokens', 'max_tokens'],
    ['tool_use', 'tool_calls'],
    ['stop_sequence', 'stop_sequence'],
    ['refusal', 'refusal'],
    ['pause_turn', 'pause'],
    ['model_context_window_exceeded', 'context_window'],
    ['something_new', 'end'],
  ])('stop_reason %s → %s', (wire, ir) => {
    expect(messagesCodec.decodeResponse({ id: 'm', model: 'x', content: [], stop_reason: wire, usage: { input_tokens: 1, output_tokens: 1 } }, ctx()).stopReason).toBe(ir);
  });

  it('tool names map back to the caller: namespace and custom tools', () => {
    const c = ctx([
      ['functions__exec', { name: 'exec', namespace: 'functions', kind: 'custom' }],
      ['multi_agent_v1__spawn', { name: 'spawn', namespace: 'multi_agent_v1', kind: 'function' }],
    ]);
    const r = messagesCodec.decodeResponse(
      {
        id: 'm',
        model: 'x',
        stop_reason: 'tool_use',
        content: [
          { type: 'tool_use', id: 't1', name: 'functions__exec', input: { input: 'console.log("a\\nb")' } },
          { type: 'tool_use', id: 't2', name: 'multi_agent_v1__spawn', input: { n: 2 } },
        ],
        usage: { input_tokens: 1, output_tokens: 1 },
      },
      c,
    );
    expect(r.content).toEqual([
      { type: 'tool_call', id: 't1', name: 'exec', namespace: 'functions', kind: 'custom', arguments: 'console.log("a\\nb")' },
      { type: 'tool_call', id: 't2', name: 'spawn', namespace: 'multi_agent_v1', kind: 'function', arguments: '{"n":2}' },
    ]);
  });
});

describe('decodeStream', () => {
  it.each(PAIRS)('%s: the stream accumulates to what the JSON answer decodes to', (name) => {
    const fromStream = accumulateEvents(decodeSse([read(`${name}.sse`)]));
    const fromJson = messagesCodec.decodeResponse(json(`${name}.json`), ctx());
    expect(normalise(fromStream)).toEqual(normalise(fromJson));
  });

  it.each([...PAIRS, 'error'])('%s: the same events whatever the byte boundaries', (name) => {
    const bytes = read(`${name}.sse`);
    const whole = decodeSse([bytes]);
    for (let i = 0; i <= bytes.length; i++) {
      expect(decodeSse([bytes.subarray(0, i), bytes.subarray(i)])).toEqual(whole);
    }
    // and byte by byte
    expect(decodeSse([...bytes].map((b) => Buffer.from([b])))).toEqual(whole);
  });

  it('text: start usage, then plain deltas', () => {
    expect(decodeSse([read('text.sse')])).toEqual([
      { type: 'start', id: 'msg_01XFDUDYJgAACzvnptvVoYEL', model: 'claude-sonnet-5-5', created: 1_700_000_000, usage: { inputTokens: 9672, cacheReadTokens: 8000, cacheWriteTokens: 1200 } },
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'block_delta', index: 0, delta: { type: 'text', text: 'Hello' } },
      { type: 'block_delta', index: 0, delta: { type: 'text', text: '! How can I help — today? 👋' } },
      { type: 'block_stop', index: 0 },
      { type: 'finish', stopReason: 'end', usage: { inputTokens: 9672, outputTokens: 15, cacheReadTokens: 8000, cacheWriteTokens: 1200 } },
    ]);
  });

  it('tool calls: argument fragments pass through (empty ones dropped); a call without deltas gets {}', () => {
    const events = decodeSse([read('tools.sse')]);
    const args = (index: number) => events.flatMap((e) => (e.type === 'block_delta' && e.index === index && e.delta.type === 'arguments' ? [e.delta.text] : []));
    expect(args(1)).toEqual(['{"city": "Pa', 'ris", "unit": "c"}']);
    expect(args(3)).toEqual(['{}']);
  });

  it('thinking: reasoning deltas, then the signature; thinking tokens in the finish usage', () => {
    const events = decodeSse([read('thinking.sse')]);
    expect(events.slice(1, 6)).toEqual([
      { type: 'block_start', index: 0, block: { type: 'reasoning' } },
      { type: 'block_delta', index: 0, delta: { type: 'reasoning', text: 'The user wants me to run echo' } },
      { type: 'block_delta', index: 0, delta: { type: 'reasoning', text: ' through the Bash tool.' } },
      {
        type: 'block_delta',
        index: 0,
        delta: { type: 'signature', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds7SOWh0ZW1wXN0HWs/cRQZ3TgZ+9fJ/1IWZHk5ssGxAd8e6OnCyvM6VQaYsC0dmDZRIaME0BZ5pHBL' },
      },
      { type: 'block_stop', index: 0 },
    ]);
    expect(events[6]).toEqual({ type: 'block_start', index: 1, block: { type: 'reasoning', redacted: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' } });
    expect(events.at(-1)).toEqual({ type: 'finish', stopReason: 'tool_calls', usage: { inputTokens: 30012, outputTokens: 120, cacheReadTokens: 30000, reasoningTokens: 64 } });
  });

  it('server tool blocks are skipped and the rest renumbered; comments, ping and unknown events ignored', () => {
    const c = ctx();
    const events = decodeSse([read('server-tools.sse')], c);
    expect(events.filter((e) => e.type !== 'start' && e.type !== 'finish')).toEqual([
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'block_delta', index: 0, delta: { type: 'text', text: 'It is sunny. END' } },
      { type: 'block_stop', index: 0 },
    ]);
    expect(events.at(-1)).toEqual({ type: 'finish', stopReason: 'stop_sequence', stopSequence: 'END', usage: { inputTokens: 2000, outputTokens: 40 } });
    expect(c.warnings).toEqual(['web_search tool (server)', 'server tool results', 'citations']);
  });

  it('an in-band error becomes an IR error', () => {
    const events = decodeSse([read('error.sse')]);
    expect(events.map((e) => e.type)).toEqual(['start', 'block_start', 'block_delta', 'error']);
    expect(events.at(-1)).toEqual({ type: 'error', message: 'Overloaded', errorType: 'overloaded_error' });
    // nothing follows an error
    const after = Buffer.concat([read('error.sse'), Buffer.from('event: message_stop\ndata: {"type":"message_stop"}\n\n')]);
    expect(decodeSse([after])).toEqual(events);
  });

  it('a stream cut short ends without a finish (the pipeline reports it)', () => {
    const text = read('text.sse').toString('utf8');
    const events = decodeSse([Buffer.from(text.slice(0, text.indexOf('event: message_delta')))]);
    expect(events.map((e) => e.type)).toEqual(['start', 'block_start', 'block_delta', 'block_delta', 'block_stop']);
  });

  it('custom tools: the stand-in arguments are buffered and emitted once as the raw input', () => {
    const c = ctx([['functions__exec', { name: 'exec', namespace: 'functions', kind: 'custom' }]]);
    const sse = [
      { type: 'message_start', message: { id: 'm1', model: 'x', usage: { input_tokens: 5, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't1', name: 'functions__exec', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"input": "let x' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: ' = \\"y\\";"}' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    ]
      .map((d) => `event: ${d.type}\ndata: ${JSON.stringify(d)}\n\n`)
      .join('');
    const events = decodeSse([Buffer.from(sse)], c);
    expect(events.slice(1, 4)).toEqual([
      { type: 'block_start', index: 0, block: { type: 'tool_call', id: 't1', name: 'exec', namespace: 'functions', kind: 'custom' } },
      { type: 'block_delta', index: 0, delta: { type: 'arguments', text: 'let x = "y";' } },
      { type: 'block_stop', index: 0 },
    ]);
  });

  it('deviations: data-only messages, events before message_start, a second message_stop', () => {
    const frames = [
      'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Hi"}}\n\n',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
      'event: message_start\ndata: not json\n\n',
    ];
    const events = decodeSse([Buffer.from(frames.join(''))]);
    expect(accumulateEvents(events)).toEqual({
      id: 'msg_test',
      model: 'claude-up',
      created: 1_700_000_000,
      content: [{ type: 'text', text: 'Hi' }],
      stopReason: 'end',
      usage: { inputTokens: 0, outputTokens: 0 },
    });
  });
});

describe('our own encoder output decodes back', () => {
  const responses: [string, Ir.Response][] = [
    [
      'everything',
      {
        id: 'msg_1',
        model: 'claude-test',
        created: 1_700_000_000,
        content: [
          { type: 'reasoning', text: 'why', signature: 'sig' },
          { type: 'reasoning', text: '', redacted: 'opaque' },
          { type: 'text', text: 'Answer.' },
          { type: 'tool_call', id: 'toolu_1', name: 'get', kind: 'function', arguments: '{"a":[1,2],"b":{"c":"d"}}' },
          { type: 'tool_call', id: 'toolu_2', name: 'get', kind: 'function', arguments: '{}' },
        ],
        stopReason: 'tool_calls',
        usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 60, cacheWriteTokens: 10, reasoningTokens: 5 },
      },
    ],
    [
      'stop sequence',
      { id: 'msg_2', model: 'claude-test', created: 1_700_000_000, content: [{ type: 'text', text: 'a b' }], stopReason: 'stop_sequence', stopSequence: 'c', usage: { inputTokens: 3, outputTokens: 2 } },
    ],
  ];

  it.each(responses)('%s: encodeStream → decodeStream equals encodeResponse → decodeResponse equals the original', (_name, r) => {
    const enc = messagesCodec.encodeStream(ctx(), {});
    const sse = responseToEvents(r).map((e) => enc.push(e)).join('') + enc.end();
    const fromStream = accumulateEvents(decodeSse([Buffer.from(sse)]));
    const fromJson = messagesCodec.decodeResponse(JSON.parse(JSON.stringify(messagesCodec.encodeResponse(r, ctx(), {}))) as Json, ctx());
    expect(fromStream).toEqual(fromJson);
    // the encoders report the caller's model name
    expect(fromJson).toEqual({ ...r, model: 'gpt-test' });
  });
});
