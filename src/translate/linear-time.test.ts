/**
 * Steps of translation that once cost the square of what a request or a stream holds: each now
 * takes one step per element. Sizes are large enough that a quadratic step takes seconds.
 */
import { describe, expect, it } from 'vitest';
import { translateContext } from '../../test/helpers/translate-context.js';
import { chatCodec } from '../protocols/chat/codec/codec.js';
import { createBlockWriter } from '../protocols/chat/codec/stream-blocks.js';
import type * as Ir from './ir.js';
import { createJsonObjectPrefix } from '../protocols/messages/codec/json-prefix.js';
import { warn } from './common/warn.js';
import { translatorFor } from './registry.js';
import { expectLinear, GROWTH } from '../../test/helpers/linear-time.js';

const ctx = (): Ir.TranslateContext => {
  let n = 0;
  return {
    ...translateContext({ caller: 'chat', upstream: 'messages', requestedModel: 'm', upstreamModel: 'm', upstreamDialect: 'anthropic' }),
    newId: (p) => `${p}${++n}`,
  };
};

describe('warnings', () => {
  it.each([
    ['100,000 distinct phrases', (i: number) => `t${i} content part`],
    ['100,000 long distinct phrases', (i: number) => `${i} ${'x'.repeat(1000)} content part`],
  ])('%s: a short list, cut, ending in "more", in linear time', (_, phrase) => {
    const run = (n: number) => {
      const c = ctx();
      for (let i = 0; i < n; i++) warn(c, phrase(i));
      return c;
    };
    const c = expectLinear((n) => n, run, 100_000 / GROWTH);
    expect(c.warnings.length).toBeLessThanOrEqual(32);
    expect(c.warnings.at(-1)).toBe('more');
    for (const w of c.warnings) expect(w.length).toBeLessThanOrEqual(100);
  });

  it('keeps each phrase once, in order', () => {
    const c = ctx();
    for (const p of ['a', 'b', 'a', 'c', 'b']) warn(c, p);
    expect(c.warnings).toEqual(['a', 'b', 'c']);
  });
});

describe('Chat legacy function calls', () => {
  it('50,000 calls to one function, then their results: matched in order, in linear time', () => {
    const n = 50_000;
    const body = (size: number) => {
      const calls = Array.from({ length: size }, () => ({ role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } }));
      const results = Array.from({ length: size }, (_, i) => ({ role: 'function', name: 'f', content: `r${i}` }));
      return { model: 'm', messages: [{ role: 'user', content: 'go' }, ...calls, ...results] };
    };
    const value = expectLinear(body, (b) => chatCodec.decodeRequest(b, ctx()), n / GROWTH);
    const callIds = value.messages.flatMap((m) => m.content.flatMap((p) => (p.type === 'tool_call' ? [p.id] : [])));
    const resultIds = value.messages.flatMap((m) => m.content.flatMap((p) => (p.type === 'tool_result' ? [p.callId] : [])));
    expect(callIds).toHaveLength(n);
    expect(resultIds).toEqual(callIds);
  });
});

describe('Chat stream: parallel tool calls', () => {
  // Names coming after the first fragments keep every call waiting: each fragment asks which one is first.
  it('50,000 interleaved calls named late: one after another, whole, in linear time', () => {
    const n = 50_000;
    const write = (size: number) => {
      const writer = createBlockWriter(ctx());
      const events: Ir.StreamEvent[] = [];
      for (let i = 0; i < size; i++) writer.tool({ key: String(i), id: `c${i}`, arguments: '{"a":' }, events);
      for (let i = 0; i < size; i++) writer.tool({ key: String(i), name: 'f', arguments: `${i}}` }, events);
      writer.flush(events);
      return events;
    };
    const out = expectLinear((size) => size, write, n / GROWTH);
    const starts = out.filter((e) => e.type === 'block_start');
    expect(starts).toHaveLength(n);
    const args = new Map<number, string>();
    for (const e of out) if (e.type === 'block_delta' && e.delta.type === 'arguments') args.set(e.index, (args.get(e.index) ?? '') + e.delta.text);
    expect(args.get(0)).toBe('{"a":0}');
    expect(args.get(n - 1)).toBe(`{"a":${n - 1}}`);
  });
});

describe('streamed tool arguments: the JSON prefix check', () => {
  it.each([
    ['a 1,200,000-digit integer', '1', '2'],
    ['a 1,200,000-digit fraction', '0.', '5'],
    ['a 1,200,000-digit exponent', '1e+', '7'],
  ])('%s in 1,000-character fragments: accepted in linear time', (_, head, digit) => {
    const fragment = digit.repeat(1000);
    const push = (fragments: number) => {
      const prefix = createJsonObjectPrefix();
      expect(prefix.push(`{"n":${head}`)).toBe(5 + head.length);
      for (let i = 0; i < fragments; i++) expect(prefix.push(fragment)).toBe(1000);
      return prefix;
    };
    const p = expectLinear((fragments) => fragments, push, 300);
    expect(p.completion()).toBe('}');
    expect(p.push('}')).toBe(1);
    expect(p.complete).toBe(true);
  });
});

describe('lists far longer than the default caps', () => {
  // An operator may raise server.maxContentBlocks and maxTools; a list then still translates, where
  // `push(...list)` passed each element as an argument and overflowed the stack.
  const N = 300_000;
  const blocks = Array.from({ length: N }, (_, i) => ({ type: 'text', text: `t${i}` }));
  const pair = (caller: 'chat' | 'messages' | 'responses', upstream: 'chat' | 'messages' | 'responses') =>
    translateContext({ caller, upstream, requestedModel: 'm', upstreamModel: 'm', upstreamDialect: upstream === 'messages' ? 'anthropic' : 'openai' });

  it.each([
    ['messages → chat: one user turn of 300,000 blocks', 'messages', 'chat', { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: blocks }] }],
    ['messages → chat: a system of 300,000 blocks', 'messages', 'chat', { model: 'm', max_tokens: 5, system: blocks, messages: [{ role: 'user', content: 'hi' }] }],
    ['chat → messages: a system message of 300,000 parts', 'chat', 'messages', { model: 'm', messages: [{ role: 'system', content: blocks }, { role: 'user', content: 'hi' }] }],
    [
      'responses → messages: 300,000 tools in a namespace',
      'responses',
      'messages',
      { model: 'm', input: 'hi', tools: [{ type: 'namespace', name: 'ns', tools: Array.from({ length: N }, (_, i) => ({ type: 'function', name: `f${i}`, parameters: {} })) }] },
    ],
  ] as const)('%s', (_, caller, upstream, body) => {
    const out = translatorFor(caller, upstream)!.request(structuredClone(body) as Record<string, unknown>, pair(caller, upstream));
    expect(JSON.stringify(out).length).toBeGreaterThan(N);
  });
});
