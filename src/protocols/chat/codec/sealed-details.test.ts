/**
 * Reasoning a Chat caller cannot hold in `reasoning_content` (OpenAI's encrypted reasoning, Claude's
 * signature or redacted thinking) goes out in a sealed `reasoning_details` entry, whole and streamed
 * alike, and comes back from the caller's history as the parts it was made from; a forged entry does not.
 */
import { describe, expect, it } from 'vitest';
import { reasoningSeal } from '#src/translate/common/reasoning-seal.js';
import { responseToEvents } from '#src/translate/common/ir-stream.js';
import type * as Ir from '#src/translate/ir.js';
import type { Json } from '#src/translate/types.js';
import { chatCodec } from './codec.js';
import { SEALED_FORMAT } from './sealed-details.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';

const seal = reasoningSeal(Buffer.alloc(32, 7));
const ctx = (upstream: Ir.TranslateContext['upstream'], withSeal = true) =>
  translateContext({ caller: 'chat', upstream, requestedModel: 'm', upstreamModel: 'u', upstreamDialect: 'openai', ...(withSeal ? { seal } : {}) });

const call: Ir.ToolCallPart = { type: 'tool_call', id: 'call_1', name: 'f', arguments: '{}', kind: 'function' };
const answer = (reasoning: Ir.ReasoningPart[]): Ir.Response => ({
  id: 'r1',
  model: 'u',
  created: 1,
  content: [...reasoning, call],
  stopReason: 'tool_calls',
  usage: { inputTokens: 1, outputTokens: 1 },
});

/** What the caller's stream gave as `reasoning_details`, all chunks together. */
function streamedDetails(response: Ir.Response, c: Ir.TranslateContext): Json[] {
  const encoder = chatCodec.encodeStream(c, {});
  const body = responseToEvents(response).map((e) => encoder.push(e)).join('') + encoder.end();
  return body
    .split('\n\n')
    .filter((f) => f.startsWith('data: {'))
    .flatMap((f) => ((JSON.parse(f.slice(6)) as { choices?: { delta?: { reasoning_details?: Json[] } }[] }).choices?.[0]?.delta?.reasoning_details ?? []));
}

/** The caller's next turn, as an OpenRouter-style client sends it back, decoded. */
function replayed(message: Json, c: Ir.TranslateContext): readonly Ir.AssistantPart[] {
  const request = chatCodec.decodeRequest(
    { model: 'm', messages: [{ role: 'user', content: 'q' }, message, { role: 'tool', tool_call_id: 'call_1', content: 'r' }] },
    c,
  );
  const assistant = request.messages[1];
  if (assistant?.role !== 'assistant') throw new Error('no assistant turn');
  return assistant.content;
}

const CASES: [string, Ir.TranslateContext['upstream'], Ir.ReasoningPart[]][] = [
  ["Claude's signed thinking, interleaved", 'messages', [
    { type: 'reasoning', text: 'first thought', signature: 'sig-a' },
    { type: 'reasoning', text: '', redacted: 'opaque-b' },
  ]],
  ["OpenAI's encrypted reasoning with its item id", 'responses', [{ type: 'reasoning', text: '', summary: ['a summary'], encrypted: 'enc-1', id: 'rs_1' }]],
];

describe('sealed reasoning_details for Chat callers', () => {
  it.each(CASES)('%s: out whole and streamed alike, back as it came', (_name, upstream, reasoning) => {
    const response = answer(reasoning);
    const message = (chatCodec.encodeResponse(response, ctx(upstream), {}) as { choices: { message: Json }[] }).choices[0]!.message;
    const details = message.reasoning_details as Json[];
    expect(details).toHaveLength(reasoning.length);
    for (const [i, entry] of details.entries()) expect(entry).toMatchObject({ type: 'reasoning.text', format: SEALED_FORMAT, index: i, signature: expect.stringMatching(/^mgw1\./) });
    expect(streamedDetails(response, ctx(upstream))).toEqual(details);
    expect(replayed({ role: 'assistant', content: null, reasoning_content: message.reasoning_content, reasoning_details: details, tool_calls: message.tool_calls }, ctx(upstream))).toEqual([
      ...reasoning,
      call,
    ]);
  });

  it('plain reasoning text needs no entry; no seal, no entry', () => {
    const plain = chatCodec.encodeResponse(answer([{ type: 'reasoning', text: 'just text' }]), ctx('chat'), {}) as { choices: { message: Json }[] };
    expect(plain.choices[0]!.message).not.toHaveProperty('reasoning_details');
    const unsealed = chatCodec.encodeResponse(answer(CASES[0]![2]), ctx('messages', false), {}) as { choices: { message: Json }[] };
    expect(unsealed.choices[0]!.message).not.toHaveProperty('reasoning_details');
  });

  it('an entry whose text was altered does not open: dropped and listed; other entries are kept as details', () => {
    const message = (chatCodec.encodeResponse(answer(CASES[0]![2]), ctx('messages'), {}) as { choices: { message: Json }[] }).choices[0]!.message;
    const [first, second] = message.reasoning_details as Json[];
    const theirs = { type: 'reasoning.encrypted', data: 'x', format: 'openai-responses-v1', index: 5 };
    const c = ctx('messages');
    const parts = replayed({ role: 'assistant', content: null, reasoning_details: [{ ...first, text: 'forged' }, second, theirs], tool_calls: message.tool_calls }, c);
    expect(parts).toEqual([{ type: 'reasoning', text: '', redacted: 'opaque-b' }, { type: 'reasoning', text: '', details: [theirs] }, call]);
    expect(c.warnings).toEqual(['unverified reasoning']);
  });
});
