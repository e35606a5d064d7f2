/**
 * Round trip: for IR requests that use only what Messages can express,
 * `decodeRequest(encodeRequest(ir))` gives the same IR back.
 */
import { describe, expect, it } from 'vitest';
import type * as Ir from '#src/translate/ir.js';
import { messagesCodec } from './codec.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';

function ctx(): Ir.TranslateContext {
  return translateContext({
    caller: 'messages',
    upstream: 'messages',
    requestedModel: 'claude-test',
    upstreamModel: 'claude-test',
    upstreamDialect: 'anthropic',
  });
}

const eph = { type: 'ephemeral' } as const;
const hi: Ir.Message = { role: 'user', content: [{ type: 'text', text: 'hi' }] };
const base: Ir.Request = { model: 'claude-test', system: [], messages: [hi], tools: [], stream: false, maxOutputTokens: 4000 };
const get: Ir.Tool = { kind: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

const cases: [string, Ir.Request][] = [
  ['minimal', base],
  ['system with cache hints, streaming', { ...base, system: [{ type: 'text', text: 'S1' }, { type: 'text', text: 'S2', cacheControl: eph }], stream: true }],
  [
    'multi-turn with images and files',
    {
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' }, cacheControl: eph },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } },
            { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0x', filename: 'a.pdf' },
            { type: 'file', mediaType: 'application/pdf', url: 'https://example.com/b.pdf' },
            { type: 'file', mediaType: 'text/plain', text: 'notes', cacheControl: eph },
            { type: 'text', text: 'Compare these.' },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'They differ.' }] },
        { role: 'user', content: [{ type: 'text', text: 'How?' }] },
      ],
    },
  ],
  [
    'tool loop with thinking, parallel calls, results with errors and images',
    {
      ...base,
      maxOutputTokens: 20000,
      tools: [get, { kind: 'function', name: 'noop', parameters: { type: 'object', properties: {} }, strict: true, cacheControl: eph }],
      toolChoice: { type: 'auto' },
      reasoning: { effort: 'medium', budgetTokens: 4096 },
      messages: [
        hi,
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'plan', signature: 'c2lnbmF0dXJl/+=' },
            { type: 'reasoning', text: '', redacted: 'cmVkYWN0ZWQ=' },
            { type: 'text', text: 'Checking.' },
            { type: 'tool_call', id: 'toolu_1', name: 'get_weather', kind: 'function', arguments: '{"city":"Paris"}' },
            { type: 'tool_call', id: 'toolu_2', name: 'noop', kind: 'function', arguments: '{}', cacheControl: eph },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', callId: 'toolu_1', content: [{ type: 'text', text: 'sunny' }], isError: false },
            {
              type: 'tool_result',
              callId: 'toolu_2',
              isError: true,
              cacheControl: eph,
              content: [
                { type: 'text', text: 'failed' },
                { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/' } },
              ],
            },
            { type: 'text', text: 'go on' },
          ],
        },
      ],
    },
  ],
  ['tool choice required, no parallel calls', { ...base, tools: [get], toolChoice: { type: 'required' }, parallelToolCalls: false }],
  ['tool choice by name', { ...base, tools: [get], toolChoice: { type: 'tool', name: 'get_weather' } }],
  ['tool choice none', { ...base, tools: [get], toolChoice: { type: 'none' } }],
  ['sampling and stops', { ...base, temperature: 0.4, topK: 5, stop: ['END', '###'], user: 'user-1' }],
  ['top_p alone', { ...base, topP: 0.8 }],
  ['structured output', { ...base, responseFormat: { type: 'json_schema', schema: { type: 'object', properties: { a: { type: 'number' } } } } }],
  ['high budget', { ...base, maxOutputTokens: 64000, reasoning: { effort: 'high', budgetTokens: 16384 } }],
];

describe('decodeRequest(encodeRequest(ir)) = ir', () => {
  it.each(cases)('%s', (_name, ir) => {
    const c = ctx();
    const wire = messagesCodec.encodeRequest(ir, c);
    // through JSON, as on the wire
    const back = messagesCodec.decodeRequest(JSON.parse(JSON.stringify(wire)) as Record<string, unknown>, c);
    expect(back).toEqual(ir);
    expect(c.warnings).toEqual([]);
  });
});
