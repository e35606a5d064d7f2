/**
 * Thought signatures through every caller shape and back. A Gemini 3 answer with signatures (on a
 * text part and on the first of two parallel calls) goes to a Messages, a Responses and a Chat
 * caller as each codec writes it (with the real seal, under a test key); the caller sends it back
 * as its history on the next turn; the Gemini request then has each signature on the part it came
 * from. And the other way: reasoning from Anthropic, OpenAI and Chat upstreams reaches a Gemini caller
 * sealed in a `thoughtSignature`, and comes back to its upstream whole. History no Gemini produced gets
 * Google's documented value, listed.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chatCodec } from '#src/protocols/chat/codec/codec.js';
import { messagesCodec } from '#src/protocols/messages/codec/codec.js';
import { responsesCodec } from '#src/protocols/responses/codec/codec.js';
import { reasoningSeal } from '#src/translate/common/reasoning-seal.js';
import type * as Ir from '#src/translate/ir.js';
import type { Protocol } from '#src/protocols/types.js';
import type { Json } from '#src/translate/types.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';
import { geminiCodec } from './codec.js';
import { SKIP_SIGNATURE } from './signatures.js';

const seal = reasoningSeal(randomBytes(32));

const ctx = (caller: Protocol, upstream: Protocol, upstreamModel = 'gemini-3-pro-preview'): Ir.TranslateContext =>
  translateContext({ caller, upstream, requestedModel: 'caller-model', upstreamModel, upstreamDialect: 'openai', seal });

const answer = JSON.parse(readFileSync(new URL('./fixtures/gemini3-parallel-tools.json', import.meta.url), 'utf8')) as Json;
const originalTurn = (answer.candidates as Json[])[0]!.content as Json;

const weatherTool = { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

/** Each caller's next request: its first message, the answer as it got it, and the two results. */
const NEXT_TURN: Record<'messages' | 'responses' | 'chat', (encoded: Json) => Json> = {
  messages: (encoded) => ({
    model: 'caller-model',
    max_tokens: 1000,
    tools: [{ name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.parameters }],
    messages: [
      { role: 'user', content: 'Weather in Paris and London?' },
      { role: 'assistant', content: encoded.content },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'fc_1', content: 'sunny' },
          { type: 'tool_result', tool_use_id: 'fc_2', content: 'rain' },
        ],
      },
    ],
  }),
  responses: (encoded) => ({
    model: 'caller-model',
    tools: [{ type: 'function', ...weatherTool }],
    input: [
      { role: 'user', content: 'Weather in Paris and London?' },
      ...(encoded.output as Json[]),
      { type: 'function_call_output', call_id: 'fc_1', output: 'sunny' },
      { type: 'function_call_output', call_id: 'fc_2', output: 'rain' },
    ],
  }),
  chat: (encoded) => ({
    model: 'caller-model',
    tools: [{ type: 'function', function: weatherTool }],
    messages: [
      { role: 'user', content: 'Weather in Paris and London?' },
      (encoded.choices as Json[])[0]!.message,
      { role: 'tool', tool_call_id: 'fc_1', content: 'sunny' },
      { role: 'tool', tool_call_id: 'fc_2', content: 'rain' },
    ],
  }),
};

const CALLERS = { messages: messagesCodec, responses: responsesCodec, chat: chatCodec } as const;

describe('a Gemini signature reaches each caller and comes back on its part', () => {
  it.each(Object.keys(NEXT_TURN) as (keyof typeof NEXT_TURN)[])('%s caller', (caller) => {
    const codec = CALLERS[caller];
    const first = ctx(caller, 'gemini');
    const callerBody = caller === 'responses' ? { include: ['reasoning.encrypted_content'], store: false } : {};
    const encoded = JSON.parse(JSON.stringify(codec.encodeResponse(geminiCodec.decodeResponse(answer, first), first, callerBody))) as Json;
    // Nothing Gemini's in the clear for the two callers that have no field for it.
    if (caller !== 'chat') expect(JSON.stringify(encoded)).not.toContain('c2lnLWNhbGwtMQ==');

    const next = ctx(caller, 'gemini');
    const ir = codec.decodeRequest(NEXT_TURN[caller](encoded), next);
    const body = geminiCodec.encodeRequest(ir, next) as { contents: Json[] };
    expect(body.contents[1]).toEqual(originalTurn);
    expect(body.contents[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { id: 'fc_1', name: 'get_weather', response: { output: 'sunny' } } },
        { functionResponse: { id: 'fc_2', name: 'get_weather', response: { output: 'rain' } } },
      ],
    });
    expect(next.warnings).toEqual([]);
  });

  it('a seal altered by the caller is dropped and listed; the call then gets the documented value', () => {
    const first = ctx('messages', 'gemini');
    const encoded = JSON.parse(JSON.stringify(messagesCodec.encodeResponse(geminiCodec.decodeResponse(answer, first), first, {}))) as { content: Json[] };
    const tampered = encoded.content.map((b) => (b.type === 'thinking' && typeof b.signature === 'string' ? { ...b, thinking: `${String(b.thinking)}!` } : b));
    const next = ctx('messages', 'gemini');
    const ir = messagesCodec.decodeRequest(NEXT_TURN.messages({ content: tampered }), next);
    const body = geminiCodec.encodeRequest(ir, next) as { contents: Json[] };
    const parts = body.contents[1]!.parts as Json[];
    expect(parts.find((p) => p.functionCall !== undefined)?.thoughtSignature).toBe(SKIP_SIGNATURE);
    expect(next.warnings).toContain('unverified reasoning');
    expect(next.warnings).toContain('thought signature skipped for history from another model');
  });
});

/** Reasoning answers from other upstreams, as the IR has them. */
const FOREIGN: [string, Protocol, Ir.AssistantPart[]][] = [
  [
    'Anthropic signed and redacted thinking',
    'messages',
    [
      { type: 'reasoning', text: 'Let me think about the weather.', signature: 'EqQBCkgIARABGAIiQL/anthropic+sig==' },
      { type: 'reasoning', text: '', redacted: 'cmVkYWN0ZWQ=' },
      { type: 'tool_call', id: 'toolu_1', name: 'get_weather', kind: 'function', arguments: '{"city":"Paris"}' },
    ],
  ],
  [
    'OpenAI encrypted reasoning with a summary',
    'responses',
    [
      // One summary part: a thought part has one text (summary parts come back joined, as through a Messages caller).
      { type: 'reasoning', text: '', summary: ['**Weather**\n\nChecking Paris.'], encrypted: 'gAAAAB-openai-encrypted', id: 'rs_1' },
      { type: 'text', text: 'One moment.' },
      { type: 'tool_call', id: 'call_1', name: 'get_weather', kind: 'function', arguments: '{"city":"Paris"}' },
    ],
  ],
  [
    'OpenRouter reasoning details at the end of a text answer',
    'chat',
    [
      { type: 'text', text: 'Sunny.' },
      { type: 'reasoning', text: 'Done.', details: [{ type: 'reasoning.encrypted', data: 'or-data', index: 0 }] },
    ],
  ],
  [
    // DeepSeek's thinking mode refuses a tool-call turn without its `reasoning_content`.
    'bare reasoning text (a DeepSeek-style reasoning_content) before a call',
    'chat',
    [
      { type: 'reasoning', text: 'The user wants Paris.' },
      { type: 'tool_call', id: 'call_1', name: 'get_weather', kind: 'function', arguments: '{"city":"Paris"}' },
    ],
  ],
];

describe('reasoning from another upstream reaches a Gemini caller and comes back whole', () => {
  it.each(FOREIGN)('%s', (_name, upstream, content) => {
    const response: Ir.Response = { id: 'up-1', model: 'm', created: 1, content, stopReason: 'tool_calls', usage: { inputTokens: 1, outputTokens: 1 } };
    const first = ctx('gemini', upstream, 'upstream-model');
    const encoded = JSON.parse(JSON.stringify(geminiCodec.encodeResponse(response, first, {}))) as { candidates: { content: Json }[] };
    const turn = encoded.candidates[0]!.content;
    // Every signature a Gemini client keeps is base64.
    for (const p of turn.parts as Json[]) if (p.thoughtSignature !== undefined) expect(p.thoughtSignature).toMatch(/^[A-Za-z0-9+/]+=*$/);

    for (const dropThoughts of [false, true]) {
      // The Gemini CLI keeps signatures but may leave thought parts out of its history.
      const parts = (turn.parts as Json[]).filter((p) => !dropThoughts || p.thought !== true);
      const next = ctx('gemini', upstream, 'upstream-model');
      const ir = geminiCodec.decodeRequest({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }, { role: 'model', parts }] }, next);
      expect(ir.messages[1]).toEqual({ role: 'assistant', content });
      expect(next.warnings).toEqual([]);
    }
  });

  it('bare reasoning text is a thought part for the caller to see, its text sealed on the next part', () => {
    const c = ctx('gemini', 'chat', 'deepseek');
    const body = geminiCodec.encodeResponse(
      { id: 'x', model: 'm', created: 1, content: [{ type: 'reasoning', text: 'hmm' }, { type: 'text', text: 'ok' }], stopReason: 'end', usage: { inputTokens: 1, outputTokens: 1 } },
      c,
      {},
    ) as { candidates: { content: Json }[] };
    const [thought, text] = body.candidates[0]!.content.parts as Json[];
    expect(thought).toEqual({ text: 'hmm', thought: true });
    expect(text).toEqual({ text: 'ok', thoughtSignature: expect.stringMatching(/^bWd3MS/) });
    expect(c.warnings).toEqual([]);
  });

  it('bare reasoning text in history goes to a Gemini upstream as a thought part, unsealed and not listed', () => {
    const c = ctx('chat', 'gemini');
    const body = geminiCodec.encodeRequest(
      {
        model: 'm',
        system: [],
        tools: [],
        stream: false,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'go' }] },
          { role: 'assistant', content: [{ type: 'reasoning', text: 'hmm' }, { type: 'text', text: 'ok' }] },
          { role: 'user', content: [{ type: 'text', text: 'again' }] },
        ],
      },
      c,
    ) as { contents: Json[] };
    expect(body.contents[1]).toEqual({ role: 'model', parts: [{ text: 'hmm', thought: true }, { text: 'ok' }] });
    expect(c.warnings).toEqual([]);
  });
});

describe('history Gemini did not produce', () => {
  it('the first call of each step without a signature gets the documented value; signed steps keep theirs', () => {
    const c = ctx('messages', 'gemini');
    const call = (id: string): Ir.ToolCallPart => ({ type: 'tool_call', id, name: 'get_weather', kind: 'function', arguments: '{}' });
    const result = (id: string): Ir.Message => ({ role: 'user', content: [{ type: 'tool_result', callId: id, content: [{ type: 'text', text: 'ok' }] }] });
    const body = geminiCodec.encodeRequest(
      {
        model: 'm',
        system: [],
        tools: [],
        stream: false,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'go' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'Calling.' }, call('a'), call('b')] },
          result('a'),
          result('b'),
          { role: 'assistant', content: [{ type: 'reasoning', text: '', details: [{ type: 'reasoning.encrypted', data: 'real', format: 'google-gemini-v1', index: 0, id: 'c' }] }, call('c')] },
          result('c'),
        ],
      },
      c,
    ) as { contents: Json[] };
    const sigs = body.contents.filter((m) => m.role === 'model').map((m) => (m.parts as Json[]).map((p) => p.thoughtSignature ?? null));
    expect(sigs).toEqual([[null, SKIP_SIGNATURE, null], ['real']]);
    expect(c.warnings).toEqual(['thought signature skipped for history from another model']);
  });

  it('the documented values a client sends are read as no signature', () => {
    const c = ctx('gemini', 'messages', 'claude');
    const ir = geminiCodec.decodeRequest(
      { contents: [{ role: 'model', parts: [{ functionCall: { name: 'f', args: {} }, thoughtSignature: 'context_engineering_is_the_way_to_go' }] }] },
      c,
    );
    expect(ir.messages[0]).toEqual({ role: 'assistant', content: [{ type: 'tool_call', id: 'call_0_0', name: 'f', kind: 'function', arguments: '{}' }] });
  });
});
