/**
 * decodeResponse and decodeStream on realistic upstream answers (fixtures/: OpenAI,
 * vLLM, DeepSeek, Ollama) and on this codec's own encoder output: the stream,
 * folded, must equal the JSON answer for the same exchange, and the IR events
 * must not depend on where the bytes were split.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSseDecoder, type SseEvent } from '#src/sse/parse.js';
import type * as Ir from '#src/translate/ir.js';
import { accumulateEvents, responseToEvents } from '#src/translate/common/ir-stream.js';
import type { Json } from '#src/translate/types.js';
import { chatCodec } from './codec.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';

function ctx(over: Partial<Ir.TranslateContext> = {}): Ir.TranslateContext {
  return translateContext({
    caller: 'messages',
    upstream: 'chat',
    requestedModel: 'caller-model',
    upstreamModel: 'upstream-model',
    upstreamDialect: 'openai',
    ...over,
  });
}

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

/** SSE bytes → IR events, the bytes fed in the given pieces. */
function decode(pieces: readonly Buffer[], c = ctx()): Ir.StreamEvent[] {
  const sse = createSseDecoder();
  const dec = chatCodec.decodeStream(c);
  const events: SseEvent[] = [];
  for (const p of pieces) events.push(...sse.push(p));
  events.push(...sse.end());
  return [...events.flatMap((e) => dec.push(e)), ...dec.end()];
}

const PAIRS = ['openai-text', 'openai-parallel-tools', 'interleaved-tools', 'deepseek-reasoning', 'ollama-max-tokens', 'openai-refusal', 'openrouter-reasoning-details'];

describe('decodeStream and decodeResponse agree on recorded-style exchanges', () => {
  it.each(PAIRS)('%s', (name) => {
    const fromStream = accumulateEvents(decode([fixture(`${name}.sse`)]));
    const fromJson = chatCodec.decodeResponse(JSON.parse(fixture(`${name}.json`).toString('utf8')) as Json, ctx());
    expect(fromStream).toEqual(fromJson);
  });

  it.each([...PAIRS, 'openai-error'])('%s: the same IR events whatever the byte split', (name) => {
    const bytes = fixture(`${name}.sse`);
    const whole = decode([bytes]);
    for (let i = 1; i < bytes.length; i++) {
      expect(decode([bytes.subarray(0, i), bytes.subarray(i)]), `split at ${i}`).toEqual(whole);
    }
  });
});

describe('decoded content', () => {
  const parse = (name: string) => chatCodec.decodeResponse(JSON.parse(fixture(`${name}.json`).toString('utf8')) as Json, ctx());

  it('text with cached usage, comments and unknown fields ignored', () => {
    const events = decode([fixture('openai-text.sse')]);
    expect(events[0]).toEqual({ type: 'start', id: 'chatcmpl-CnT3xq1', model: 'gpt-4.1-2025-04-14', created: 1755000000 });
    expect(events.at(-1)).toEqual({
      type: 'finish',
      stopReason: 'end',
      usage: { inputTokens: 1250, outputTokens: 12, cacheReadTokens: 1152 },
    });
    expect(parse('openai-text').content).toEqual([{ type: 'text', text: 'Bonjour! Comment puis-je vous aider aujourd’hui ? 🙂' }]);
  });

  it('parallel calls: text block, then one block per call with the whole arguments', () => {
    const r = parse('openai-parallel-tools');
    expect(r.stopReason).toBe('tool_calls');
    expect(r.content).toEqual([
      { type: 'text', text: 'Let me check both.' },
      { type: 'tool_call', id: 'call_Wq1', name: 'get_weather', kind: 'function', arguments: '{"city": "Paris"}' },
      { type: 'tool_call', id: 'call_Tm2', name: 'get_time', kind: 'function', arguments: '{"tz": "Europe/Paris"}' },
    ]);
    // The first call streams live: its fragments arrive as separate deltas.
    const deltas = decode([fixture('openai-parallel-tools.sse')]).filter((e) => e.type === 'block_delta' && e.index === 1);
    expect(deltas).toHaveLength(3);
  });

  it('interleaved calls are emitted as sequential blocks, in call order, usage from the finish chunk', () => {
    const events = decode([fixture('interleaved-tools.sse')]);
    const r = accumulateEvents(events);
    expect(r.content.map((p) => (p.type === 'tool_call' ? [p.id, p.arguments] : p.type))).toEqual([
      ['chatcmpl-tool-a1', '{"path": "a.txt"}'],
      ['chatcmpl-tool-b2', '{"path": "b.txt"}'],
      ['chatcmpl-tool-c3', '{}'],
    ]);
    expect(r.usage).toEqual({ inputTokens: 400, outputTokens: 60 });
  });

  it('reasoning_content (DeepSeek) and reasoning (Ollama) become a reasoning block before the text', () => {
    expect(parse('deepseek-reasoning').content).toEqual([
      { type: 'reasoning', text: 'Okay, the user says hi. I should greet them back.' },
      { type: 'text', text: 'Hello! How can I help?' },
    ]);
    expect(parse('deepseek-reasoning').usage.reasoningTokens).toBe(33);
    const ollama = parse('ollama-max-tokens');
    expect(ollama.content).toEqual([
      { type: 'reasoning', text: 'We need to count.' },
      { type: 'text', text: '1, 2, 3,' },
    ]);
    expect(ollama.stopReason).toBe('max_tokens');
  });

  it("reasoning_details (OpenRouter) stay whole on the reasoning part: streamed pieces joined by index, signature and encrypted data kept", () => {
    const details = [
      { type: 'reasoning.text', text: 'The user wants the weather in Paris.', signature: 'EqQBCkgIBxABGAIqQKkSig', format: 'anthropic-claude-v1', index: 0 },
      { type: 'reasoning.encrypted', data: 'RWdJQ0FUR0FQUQ==', format: 'anthropic-claude-v1', index: 1 },
    ];
    expect(parse('openrouter-reasoning-details').content).toEqual([
      { type: 'reasoning', text: 'The user wants the weather in Paris.', details },
      { type: 'text', text: "I'll look it up." },
      { type: 'tool_call', id: 'toolu_01A', name: 'get_weather', kind: 'function', arguments: '{"city":"Paris"}' },
    ]);
    const events = decode([fixture('openrouter-reasoning-details.sse')]);
    // Given once, whole, just before the reasoning block stops.
    const at = events.findIndex((e) => e.type === 'block_delta' && e.delta.type === 'details');
    expect(events[at]).toEqual({ type: 'block_delta', index: 0, delta: { type: 'details', details } });
    expect(events[at + 1]).toEqual({ type: 'block_stop', index: 0 });
    expect(events.filter((e) => e.type === 'block_delta' && e.delta.type === 'details')).toHaveLength(1);
  });

  it('reasoning_details without reasoning text still open a reasoning block', () => {
    const entry = { type: 'reasoning.encrypted', data: 'b3BhcXVl', id: 'rs_9', format: 'openai-responses-v1', index: 0 };
    const r = chatCodec.decodeResponse({ choices: [{ index: 0, message: { role: 'assistant', content: 'Hi.', reasoning_details: [entry] }, finish_reason: 'stop' }] }, ctx());
    expect(r.content).toEqual([
      { type: 'reasoning', text: '', details: [entry] },
      { type: 'text', text: 'Hi.' },
    ]);
  });

  it('refusal', () => {
    const r = parse('openai-refusal');
    expect(r.content).toEqual([{ type: 'refusal', text: "I'm sorry, I can't help with that." }]);
    expect(r.stopReason).toBe('end');
  });

  it('an in-band error ends the events with an IR error', () => {
    const events = decode([fixture('openai-error.sse')]);
    expect(events.map((e) => e.type)).toEqual(['start', 'block_start', 'block_delta', 'error']);
    expect(events.at(-1)).toEqual({
      type: 'error',
      message: 'The server had an error while processing your request. Sorry about that!',
      errorType: 'server_error',
    });
  });
});

describe('stream edge cases', () => {
  const chunk = (delta: Json, finish: string | null = null, extra: Json = {}) =>
    ({ event: undefined, data: JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 5, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }], ...extra }) }) satisfies SseEvent;
  const run = (events: readonly SseEvent[], c = ctx(), end = true) => {
    const dec = chatCodec.decodeStream(c);
    return [...events.flatMap((e) => dec.push(e)), ...(end ? dec.end() : [])];
  };

  it('finish waits for the usage chunk', () => {
    const dec = chatCodec.decodeStream(ctx());
    expect(dec.push(chunk({ role: 'assistant', content: 'hi' })).map((e) => e.type)).toEqual(['start', 'block_start', 'block_delta']);
    expect(dec.push(chunk({}, 'stop')).map((e) => e.type)).toEqual(['block_stop']);
    const usage = dec.push({ event: undefined, data: JSON.stringify({ id: 'c1', choices: [], usage: { prompt_tokens: 3, completion_tokens: 1 } }) });
    expect(usage).toEqual([{ type: 'finish', stopReason: 'end', usage: { inputTokens: 3, outputTokens: 1 } }]);
    expect(dec.push({ event: undefined, data: '[DONE]' })).toEqual([]);
    expect(dec.end()).toEqual([]);
  });

  it('without usage: finish with zeros at [DONE], or at the end of the body', () => {
    const zeros = { type: 'finish', stopReason: 'end', usage: { inputTokens: 0, outputTokens: 0 } };
    expect(run([chunk({ content: 'a' }), chunk({}, 'stop'), { event: undefined, data: '[DONE]' }], ctx(), false).at(-1)).toEqual(zeros);
    expect(run([chunk({ content: 'a' }), chunk({}, 'stop')]).at(-1)).toEqual(zeros);
  });

  it('a body cut before any finish_reason gets no finish (the pipeline reports it)', () => {
    expect(run([chunk({ content: 'a' })]).map((e) => e.type)).toEqual(['start', 'block_start', 'block_delta']);
  });

  it('[DONE] without a finish_reason still finishes, as tool_calls when calls came', () => {
    const events = run([chunk({ tool_calls: [{ index: 0, id: 'k', type: 'function', function: { name: 'f', arguments: '{}' } }] }), { event: undefined, data: '[DONE]' }]);
    expect(accumulateEvents(events).stopReason).toBe('tool_calls');
  });

  it('finish_reason stop with tool calls reads as tool_calls', () => {
    const events = run([chunk({ tool_calls: [{ index: 0, id: 'k', type: 'function', function: { name: 'f', arguments: '{}' } }] }), chunk({}, 'stop')]);
    expect(accumulateEvents(events).stopReason).toBe('tool_calls');
  });

  it('custom tools (sent as a function stand-in) come back with their raw input in one delta, names mapped back', () => {
    const c = ctx({ toolNames: new Map([['apply_patch', { name: 'apply_patch', kind: 'custom' }], ['ns__run', { name: 'run', namespace: 'ns', kind: 'function' }]]) });
    const events = run(
      [
        chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: ' Patch\\n"}' } }] }),
        chunk({ tool_calls: [{ index: 1, id: 'c2', type: 'function', function: { name: 'ns__run', arguments: '{}' } }] }),
        chunk({}, 'tool_calls'),
      ],
      c,
    );
    expect(events.filter((e) => e.type === 'block_delta' && e.index === 0)).toEqual([
      { type: 'block_delta', index: 0, delta: { type: 'arguments', text: '*** Begin Patch\n' } },
    ]);
    expect(accumulateEvents(events).content).toEqual([
      { type: 'tool_call', id: 'c1', name: 'apply_patch', kind: 'custom', arguments: '*** Begin Patch\n' },
      { type: 'tool_call', id: 'c2', name: 'run', namespace: 'ns', kind: 'function', arguments: '{}' },
    ]);
  });

  it('fragments without index or id get an id and stay one call; a late name starts the call', () => {
    const events = run([
      chunk({ tool_calls: [{ function: { arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ function: { name: 'f', arguments: ':1}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(accumulateEvents(events).content).toEqual([{ type: 'tool_call', id: 'call_test', name: 'f', kind: 'function', arguments: '{"a":1}' }]);
  });

  it('whole calls that all say index 0 stay apart by id; an empty finish_reason is no finish', () => {
    const call = (id: string, name: string) => ({ index: 0, id, type: 'function', function: { name, arguments: '{}' } });
    const events = run([chunk({ tool_calls: [call('a', 'f'), call('b', 'g')] }, ''), chunk({}, 'tool_calls')]);
    expect(accumulateEvents(events).content).toEqual([
      { type: 'tool_call', id: 'a', name: 'f', kind: 'function', arguments: '{}' },
      { type: 'tool_call', id: 'b', name: 'g', kind: 'function', arguments: '{}' },
    ]);
  });

  it('text after tool calls closes them first; error given as a string', () => {
    const events = run([
      chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }, { index: 1, id: 'b', function: { name: 'g', arguments: '{}' } }] }),
      chunk({ content: 'done' }),
      chunk({}, 'stop'),
    ]);
    expect(accumulateEvents(events).content.map((p) => p.type)).toEqual(['tool_call', 'tool_call', 'text']);
    expect(run([{ event: undefined, data: '{"error":"model not loaded"}' }])).toEqual([{ type: 'error', message: 'model not loaded' }]);
  });

  it('a named error event is an error too; other named events are read as chunks or ignored', () => {
    expect(run([chunk({ content: 'a' }), { event: 'error', data: '{"message":"Model crashed","type":"api_error"}' }]).at(-1)).toEqual({
      type: 'error',
      message: 'Model crashed',
      errorType: 'api_error',
    });
    const events = run([{ event: 'ping', data: '{}' }, chunk({ content: 'a' }), { event: 'whatever', data: 'ok' }, chunk({}, 'stop')]);
    expect(accumulateEvents(events)).toMatchObject({ id: 'c1', content: [{ type: 'text', text: 'a' }] });
  });

  it('ignores choices other than 0 and data that is not JSON', () => {
    const other = { event: undefined, data: JSON.stringify({ id: 'c1', choices: [{ index: 1, delta: { content: 'x' }, finish_reason: null }] }) };
    const events = run([chunk({ content: 'a' }), other, { event: undefined, data: 'not json' }, chunk({}, 'stop')]);
    expect(accumulateEvents(events).content).toEqual([{ type: 'text', text: 'a' }]);
  });
});

describe('decoding this codec’s own encoder output', () => {
  const responses: Ir.Response[] = [
    { id: 'chatcmpl-1', model: 'caller-model', created: 9, content: [{ type: 'text', text: 'Hello' }], stopReason: 'end', usage: { inputTokens: 5, outputTokens: 1, cacheReadTokens: 2 } },
    {
      id: 'chatcmpl-2',
      model: 'caller-model',
      created: 9,
      content: [
        { type: 'reasoning', text: 'think' },
        { type: 'text', text: 'Calling.' },
        { type: 'tool_call', id: 'call_1', name: 'f', kind: 'function', arguments: '{"x":1}' },
        { type: 'tool_call', id: 'call_2', name: 'g', kind: 'function', arguments: '{}' },
      ],
      stopReason: 'tool_calls',
      usage: { inputTokens: 50, outputTokens: 20, reasoningTokens: 4 },
    },
    { id: 'chatcmpl-3', model: 'caller-model', created: 9, content: [{ type: 'refusal', text: 'No.' }], stopReason: 'content_filter', usage: { inputTokens: 1, outputTokens: 1 } },
    { id: 'chatcmpl-4', model: 'caller-model', created: 9, content: [{ type: 'text', text: 'cut' }], stopReason: 'max_tokens', usage: { inputTokens: 1, outputTokens: 1 } },
  ];
  const callerBody = { model: 'caller-model', messages: [], stream: true, stream_options: { include_usage: true } };

  it.each(responses.map((r) => [r.id, r] as const))('%s: stream folds to the JSON answer and to the IR it came from', (_, r) => {
    const enc = chatCodec.encodeStream(ctx(), callerBody);
    const sse = responseToEvents(r).map((e) => enc.push(e)).join('') + enc.end();
    expect(sse.endsWith('data: [DONE]\n\n')).toBe(true);
    const fromStream = accumulateEvents(decode([Buffer.from(sse)]));
    const fromJson = chatCodec.decodeResponse(chatCodec.encodeResponse(r, ctx(), callerBody), ctx());
    expect(fromStream).toEqual(fromJson);
    expect(fromStream).toEqual(r);
  });
});
