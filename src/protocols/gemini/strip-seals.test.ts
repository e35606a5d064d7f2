/**
 * A Gemini caller's history holding the gateway's seals, going to Gemini as it is: the seals are
 * taken out (Google refuses a signature it did not make), the first call of a turn gets Google's
 * documented value instead, and what was taken out is counted. Gemini 3's own checks (the fake's)
 * refuse the history before and take it after.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { reasoningSeal } from '#src/translate/common/reasoning-seal.js';
import type * as Ir from '#src/translate/ir.js';
import type { Json } from '#src/translate/types.js';
import { checkGenerateRequest, GoogleRefusal } from '../../../test/helpers/fake-gemini.js';
import { translateContext } from '../../../test/helpers/translate-context.js';
import { geminiCodec } from './codec/codec.js';
import { packSeals, SKIP_SIGNATURE } from './codec/signatures.js';
import { stripSeals } from './strip-seals.js';

const seal = reasoningSeal(randomBytes(32));
/** One packed signature holding `n` seals, as the codec writes it for `n` reasoning parts. */
const sealed = (n = 1): string => packSeals(Array.from({ length: n }, (_, i) => seal.seal('', { text: `thought ${i}`, signature: `anthropic-${i}` })));
/** Gemini's own signature (base64 bytes), which must go back untouched. */
const OWN = Buffer.from('gemini-own-signature').toString('base64');

const strip = (body: Json) => stripSeals(Buffer.from(JSON.stringify(body)), () => body);

const user = { role: 'user', parts: [{ text: 'Weather in Paris?' }] };
const results = (n: number) => ({ role: 'user', parts: Array.from({ length: n }, () => ({ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } })) });
const call = (city: string) => ({ functionCall: { name: 'get_weather', args: { city } } });

const CASES: [string, Json, Json, number][] = [
  [
    'a seal on the first call: the documented value takes its place, a later call is left as it is',
    { contents: [user, { role: 'model', parts: [{ ...call('Paris'), thoughtSignature: sealed() }, call('London')] }, results(2)] },
    { contents: [user, { role: 'model', parts: [{ ...call('Paris'), thoughtSignature: SKIP_SIGNATURE }, call('London')] }, results(2)] },
    1,
  ],
  [
    'two seals on the text before a call: the text goes bare, the call it preceded gets the documented value',
    { contents: [user, { role: 'model', parts: [{ text: 'One moment.', thoughtSignature: sealed(2) }, call('Paris')] }, results(1)] },
    { contents: [user, { role: 'model', parts: [{ text: 'One moment.' }, { ...call('Paris'), thoughtSignature: SKIP_SIGNATURE }] }, results(1)] },
    2,
  ],
  [
    'a seal on a later call is dropped; the first call keeps the signature Gemini gave it',
    { contents: [user, { role: 'model', parts: [{ ...call('Paris'), thoughtSignature: OWN }, { ...call('London'), thoughtSignature: sealed() }] }, results(2)] },
    { contents: [user, { role: 'model', parts: [{ ...call('Paris'), thoughtSignature: OWN }, call('London')] }, results(2)] },
    1,
  ],
  [
    'a seal at the end of a text answer: its empty part goes, and a turn left with no part goes too',
    {
      contents: [
        user,
        { role: 'model', parts: [{ text: 'Sunny.' }, { text: '', thoughtSignature: sealed() }] },
        { role: 'user', parts: [{ text: 'And tomorrow?' }] },
        { role: 'model', parts: [{ text: '', thoughtSignature: sealed() }] },
        { role: 'user', parts: [{ text: 'Well?' }] },
      ],
    },
    {
      contents: [user, { role: 'model', parts: [{ text: 'Sunny.' }] }, { role: 'user', parts: [{ text: 'And tomorrow?' }] }, { role: 'user', parts: [{ text: 'Well?' }] }],
    },
    2,
  ],
  [
    'a sealed thought part stays a thought part, without the seal',
    { contents: [user, { role: 'model', parts: [{ text: 'Thinking.', thought: true, thoughtSignature: sealed() }, { text: 'Sunny.' }] }, { role: 'user', parts: [{ text: 'Thanks' }] }] },
    { contents: [user, { role: 'model', parts: [{ text: 'Thinking.', thought: true }, { text: 'Sunny.' }] }, { role: 'user', parts: [{ text: 'Thanks' }] }] },
    1,
  ],
  [
    'the snake_case spellings Google also reads',
    { contents: [user, { role: 'model', parts: [{ function_call: { name: 'get_weather', args: {} }, thought_signature: sealed() }] }, results(1)] },
    { contents: [user, { role: 'model', parts: [{ function_call: { name: 'get_weather', args: {} }, thoughtSignature: SKIP_SIGNATURE }] }, results(1)] },
    1,
  ],
  [
    "a count's whole generateContentRequest",
    { generateContentRequest: { model: 'models/gemini-3-pro-preview', contents: [user, { role: 'model', parts: [{ text: 'Sunny.', thoughtSignature: sealed() }] }] } },
    { generateContentRequest: { model: 'models/gemini-3-pro-preview', contents: [user, { role: 'model', parts: [{ text: 'Sunny.' }] }] } },
    1,
  ],
];

describe('stripSeals (Gemini)', () => {
  it.each(CASES)('%s', (_name, body, expected, dropped) => {
    expect(strip(body)).toEqual({ body: expected, dropped });
  });

  it.each([
    ['no signature at all', { contents: [user, { role: 'model', parts: [call('Paris')] }, results(1)] }],
    ["Gemini's own and the documented values", { contents: [user, { role: 'model', parts: [{ ...call('Paris'), thoughtSignature: OWN }, { text: 'ok', thoughtSignature: SKIP_SIGNATURE }] }] }],
    ['a seal quoted in the text, not in a signature', { contents: [{ role: 'user', parts: [{ text: 'x', extra: sealed() }] }, { role: 'user', parts: [{ text: sealed() }] }] }],
  ])('leaves a request without seals alone: %s', (_name, body) => {
    expect(strip(body)).toBeUndefined();
  });

  it("a Gemini caller's turn on another model, sent back to Gemini 3: refused with the seals, taken without them", () => {
    // Claude's signed thinking and its call, as the gateway answered a Gemini caller.
    const ctx = translateContext({ caller: 'gemini', upstream: 'messages', requestedModel: 'm', upstreamModel: 'claude', upstreamDialect: 'anthropic', seal });
    const response: Ir.Response = {
      id: 'msg_1',
      model: 'claude',
      created: 1,
      content: [
        { type: 'reasoning', text: 'Paris, then London.', signature: 'anthropic-signature' },
        { type: 'tool_call', id: 'toolu_1', name: 'get_weather', kind: 'function', arguments: '{"city":"Paris"}' },
        { type: 'tool_call', id: 'toolu_2', name: 'get_weather', kind: 'function', arguments: '{"city":"London"}' },
      ],
      stopReason: 'tool_calls',
      usage: { inputTokens: 1, outputTokens: 1 },
    };
    const answer = geminiCodec.encodeResponse(response, ctx, {}) as { candidates: { content: Json }[] };
    const history = { contents: [user, answer.candidates[0]!.content, results(2)] };
    expect(() => checkGenerateRequest(history, new Map())).toThrow(GoogleRefusal);

    const stripped = strip(history);
    expect(stripped?.dropped).toBe(1);
    expect(() => checkGenerateRequest(stripped!.body, new Map())).not.toThrow();
    expect(JSON.stringify(stripped!.body)).not.toContain('bWd3MS');
  });
});
