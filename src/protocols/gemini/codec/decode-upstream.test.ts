/**
 * Gemini answers, whole and streamed (recorded shapes in fixtures/), decoded into the IR: what each
 * becomes, that a stream folds into the same answer the whole one gives (compared as the Gemini parts
 * they send back: a stream learns a text part's signature after its text), that a Messages caller
 * gets no reasoning block after its turn's text, and the stream's events.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSseDecoder } from '#src/sse/parse.js';
import { accumulateEvents } from '#src/translate/common/ir-stream.js';
import type * as Ir from '#src/translate/ir.js';
import type { Json } from '#src/translate/types.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';
import { geminiCodec } from './codec.js';

const ctx = (caller: Ir.TranslateContext['caller'] = 'messages'): Ir.TranslateContext =>
  translateContext({ caller, upstream: 'gemini', requestedModel: 'claude-x', upstreamModel: 'gemini-3-pro-preview', upstreamDialect: 'openai' });

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

function streamEvents(sse: string, c = ctx()): Ir.StreamEvent[] {
  const decoder = geminiCodec.decodeStream(c);
  const events: Ir.StreamEvent[] = [];
  const sseDecoder = createSseDecoder();
  for (const e of sseDecoder.push(sse)) events.push(...decoder.push(e));
  for (const e of sseDecoder.end()) events.push(...decoder.push(e));
  events.push(...decoder.end());
  return events;
}

/** The model turn an IR answer goes back to Gemini as, on the next request. */
function sentBack(response: Ir.Response): unknown {
  const c = ctx();
  const body = geminiCodec.encodeRequest(
    { model: 'm', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }, { role: 'assistant', content: response.content }], tools: [], stream: false },
    c,
  );
  return (body.contents as Json[])[1];
}

const sig = (data: string, index: number, id?: string) => ({ type: 'reasoning.encrypted', data, format: 'google-gemini-v1', index, ...(id ? { id } : {}) });

const EXPECTED: [string, Ir.Response][] = [
  [
    'gemini3-parallel-tools',
    {
      id: 'resp-g3-1',
      model: 'gemini-3-pro-preview',
      created: 1_700_000_000,
      content: [
        { type: 'reasoning', text: '**Planning**\n\nI will check both cities.' },
        { type: 'reasoning', text: '', details: [sig('c2lnLXRleHQ=', 0)] },
        { type: 'text', text: 'Checking both.' },
        { type: 'reasoning', text: '', details: [sig('c2lnLWNhbGwtMQ==', 1, 'fc_1')] },
        { type: 'tool_call', id: 'fc_1', name: 'get_weather', kind: 'function', arguments: '{"city":"Paris"}' },
        { type: 'tool_call', id: 'fc_2', name: 'get_weather', kind: 'function', arguments: '{"city":"London"}' },
      ],
      stopReason: 'tool_calls',
      usage: { inputTokens: 120, outputTokens: 80, cacheReadTokens: 100, reasoningTokens: 50 },
    },
  ],
  [
    'text-max-tokens',
    {
      id: 'resp-25-1',
      model: 'gemini-2.5-flash',
      created: 1_700_000_000,
      content: [{ type: 'text', text: 'Once upon a time' }],
      stopReason: 'max_tokens',
      usage: { inputTokens: 8, outputTokens: 4 },
    },
  ],
  [
    'text-signature-last',
    {
      id: 'resp-g3-2',
      model: 'gemini-3-flash-preview',
      created: 1_700_000_000,
      content: [
        { type: 'reasoning', text: '', details: [sig('c2lnLWxhc3Q=', 0)] },
        { type: 'text', text: 'The answer is 4.' },
      ],
      stopReason: 'end',
      usage: { inputTokens: 10, outputTokens: 26, reasoningTokens: 20 },
    },
  ],
];

describe('Gemini answers → IR', () => {
  it.each(EXPECTED)('%s: whole', (name, expected) => {
    const c = ctx();
    expect(geminiCodec.decodeResponse(JSON.parse(fixture(`${name}.json`)) as Json, c)).toEqual(expected);
    expect(c.warnings).toEqual([]);
  });

  // A Responses caller: a Messages one loses a text part's signature that streams after the text (below).
  it.each(EXPECTED)('%s: the stream sends back what the whole answer does', (name, expected) => {
    const c = ctx('responses');
    const streamed = accumulateEvents(streamEvents(fixture(`${name}.sse`), c));
    expect(c.warnings).toEqual([]);
    expect({ ...streamed, content: [] }).toEqual({ ...expected, content: [] });
    expect(sentBack(streamed)).toEqual(sentBack(expected));
    // And that is the model turn as Gemini gave it (its empty text part aside).
    const original = (JSON.parse(fixture(`${name}.json`)) as { candidates: Json[] }).candidates[0]!.content;
    expect(sentBack(expected)).toEqual(original);
  });

  describe('a Messages caller gets no reasoning block after the text of its turn', () => {
    // Claude Code takes a turn's last block for its result: a text part's signature after the text
    // would leave it empty. Google checks only function calls' signatures: that one is dropped, listed.
    const text = (t: string): Ir.AssistantPart => ({ type: 'text', text: t });
    const body = (parts: Json[]): Json => ({ candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }] });
    const CASES: [string, (c: Ir.TranslateContext) => readonly Ir.AssistantPart[], readonly Ir.AssistantPart[], string[]][] = [
      [
        'streamed, the signature after the text: dropped',
        (c) => accumulateEvents(streamEvents(fixture('text-signature-last.sse'), c)).content,
        [text('The answer is 4.')],
        ['text signature after text'],
      ],
      [
        'whole, the same answer: its one text part signed, the signature before the text',
        (c) => geminiCodec.decodeResponse(JSON.parse(fixture('text-signature-last.json')) as Json, c).content,
        EXPECTED[2]![1].content,
        [],
      ],
      [
        'streamed, the signature on the first text: before it, as whole',
        (c) => accumulateEvents(streamEvents(fixture('gemini3-parallel-tools.sse'), c)).content,
        EXPECTED[0]![1].content,
        [],
      ],
      [
        'whole, the signature on a text part after another: dropped, as streamed',
        (c) => geminiCodec.decodeResponse(body([{ text: 'One.' }, { text: ' Two.', thoughtSignature: 'c2lnLTI=' }]), c).content,
        [text('One.'), text(' Two.')],
        ['text signature after text'],
      ],
      [
        'whole, a call after the text: its signature kept, before it',
        (c) =>
          geminiCodec.decodeResponse(body([{ text: 'Checking.' }, { functionCall: { id: 'fc_1', name: 'f', args: {} }, thoughtSignature: 'c2lnLWNhbGw=' }]), c)
            .content,
        [
          text('Checking.'),
          { type: 'reasoning', text: '', details: [sig('c2lnLWNhbGw=', 0, 'fc_1')] },
          { type: 'tool_call', id: 'fc_1', name: 'f', kind: 'function', arguments: '{}' },
        ],
        [],
      ],
    ];

    it.each(CASES)('%s', (_name, decode, expected, warnings) => {
      const c = ctx('messages');
      const content = decode(c);
      expect(content).toEqual(expected);
      expect(content.at(-1)!.type).not.toBe('reasoning');
      expect(c.warnings).toEqual(warnings);
    });

    it.each(['responses', 'chat', 'gemini'] as const)('a %s caller still gets it, after the text', (caller) => {
      const c = ctx(caller);
      expect(accumulateEvents(streamEvents(fixture('text-signature-last.sse'), c)).content).toEqual([
        text('The answer is 4.'),
        { type: 'reasoning', text: '', details: [sig('c2lnLWxhc3Q=', 0)] },
      ]);
      expect(c.warnings).toEqual([]);
    });
  });

  it('opens and closes blocks itself: thoughts continue their block, a call arrives whole', () => {
    const types = streamEvents(fixture('gemini3-parallel-tools.sse')).map((e) =>
      e.type === 'block_start' ? `start:${e.block.type}` : e.type === 'block_delta' ? `delta:${e.delta.type}` : e.type,
    );
    expect(types).toEqual([
      'start',
      'start:reasoning',
      'delta:reasoning',
      'delta:reasoning',
      'block_stop',
      'start:reasoning',
      'delta:details',
      'block_stop',
      'start:text',
      'delta:text',
      'block_stop',
      'start:reasoning',
      'delta:details',
      'block_stop',
      'start:tool_call',
      'delta:arguments',
      'block_stop',
      'start:tool_call',
      'delta:arguments',
      'block_stop',
      'finish',
    ]);
  });

  it('a safety block is a content filter, with nothing said', () => {
    const res = geminiCodec.decodeResponse(JSON.parse(fixture('safety.json')) as Json, ctx());
    expect(res.stopReason).toBe('content_filter');
    expect(res.content).toEqual([]);
  });

  it('a prompt blocked before any candidate is a content filter', () => {
    const res = geminiCodec.decodeResponse({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 3 } }, ctx());
    expect(res.stopReason).toBe('content_filter');
  });

  it.each([
    ['MALFORMED_FUNCTION_CALL', 'end', ['finish reason MALFORMED_FUNCTION_CALL']],
    ['RECITATION', 'content_filter', []],
    ['PROHIBITED_CONTENT', 'content_filter', []],
    ['STOP', 'end', []],
  ] as const)('finish reason %s → %s', (reason, stop, warnings) => {
    const c = ctx();
    const res = geminiCodec.decodeResponse({ candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, finishReason: reason, index: 0 }] }, c);
    expect(res.stopReason).toBe(stop);
    expect(c.warnings).toEqual(warnings);
  });

  it('ids for calls Gemini gave none, distinct within the answer; tool names back to the caller’s', () => {
    const c = ctx();
    c.toolNames.set('shell__run', { name: 'run', namespace: 'shell', kind: 'function' });
    const res = geminiCodec.decodeResponse(
      { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'shell__run', args: {} } }, { functionCall: { name: 'x', args: { a: 1 } } }] }, finishReason: 'STOP' }] },
      c,
    );
    expect(res.content).toEqual([
      { type: 'tool_call', id: 'call_0_test', name: 'run', namespace: 'shell', kind: 'function', arguments: '{}' },
      { type: 'tool_call', id: 'call_1_test', name: 'x', kind: 'function', arguments: '{"a":1}' },
    ]);
  });

  it('an error mid-stream ends the IR stream with an error', () => {
    const events = streamEvents(fixture('error.sse'));
    expect(events.at(-1)).toEqual({ type: 'error', message: 'The model is overloaded. Please try again later.', errorType: 'UNAVAILABLE' });
  });

  it('a body cut before the finish reason gives no finish', () => {
    const events = streamEvents(`${fixture('text-max-tokens.sse').split('\n\n')[0]!}\n\n`);
    expect(events.some((e) => e.type === 'finish')).toBe(false);
  });
});
