/**
 * decodeRequest(encodeRequest(ir)) gives back ir for requests that use only what
 * a Chat upstream can carry (the model is the upstream's name on the way back).
 */
import { describe, expect, it } from 'vitest';
import type * as Ir from '#src/translate/ir.js';
import { chatCodec } from './codec.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';

function ctx(dialect: 'openai' | 'compatible'): Ir.TranslateContext {
  return translateContext({
    caller: 'chat',
    upstream: 'chat',
    requestedModel: 'm',
    upstreamModel: 'm',
    upstreamDialect: dialect,
  });
}

const toolLoop: Ir.Message[] = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Look at these' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQ' }, detail: 'auto' },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } },
      { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0x', filename: 'spec.pdf' },
      { type: 'file', fileId: 'file-123' },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading both.' },
      { type: 'tool_call', id: 'call_1', name: 'read', kind: 'function', arguments: '{"path":"a"}' },
      { type: 'tool_call', id: 'call_2', name: 'read', kind: 'function', arguments: '{"path":"b"}' },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', callId: 'call_1', content: [{ type: 'text', text: 'A' }] },
      { type: 'tool_result', callId: 'call_2', content: [{ type: 'text', text: 'B' }] },
    ],
  },
  { role: 'assistant', content: [{ type: 'text', text: 'Both read.' }] },
  { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
];

const tools: Ir.Tool[] = [
  { kind: 'function', name: 'read', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } }, strict: false },
];

const cases: [string, 'openai' | 'compatible', Ir.Request][] = [
  ['minimal', 'openai', { model: 'm', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], stream: false }],
  [
    'tool loop with everything OpenAI takes',
    'openai',
    {
      model: 'm',
      system: [{ type: 'text', text: 'Be terse.' }],
      messages: [...toolLoop, { role: 'system', content: [{ type: 'text', text: 'Answer in French.' }] }, { role: 'user', content: [{ type: 'text', text: 'Encore' }] }],
      tools,
      toolChoice: { type: 'tool', name: 'read' },
      parallelToolCalls: true,
      maxOutputTokens: 2048,
      temperature: 0.2,
      topP: 0.95,
      stop: ['###', 'END'],
      stream: true,
      reasoning: { effort: 'low' },
      responseFormat: { type: 'json_schema', name: 'answer', description: 'An answer', schema: { type: 'object' }, strict: true },
      user: 'user-42',
    },
  ],
  [
    'compatible: reasoning history, cache hints, top_k',
    'compatible',
    {
      model: 'm',
      system: [{ type: 'text', text: 'Sys', cacheControl: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q', cacheControl: { type: 'ephemeral' } }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Thinking it over.' },
            { type: 'tool_call', id: 'call_x', name: 'read', kind: 'function', arguments: '{}' },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', callId: 'call_x', content: [{ type: 'text', text: 'ok' }] }] },
      ],
      tools,
      toolChoice: { type: 'required' },
      maxOutputTokens: 512,
      topK: 20,
      stream: false,
      responseFormat: { type: 'json_object' },
      user: 'u',
    },
  ],
];

describe('request round trip through the Chat wire format', () => {
  it.each(cases)('%s (%s)', (_, dialect, ir) => {
    const c = ctx(dialect);
    const wire = chatCodec.encodeRequest(ir, c);
    expect(c.warnings).toEqual([]);
    expect(chatCodec.decodeRequest(wire, ctx(dialect))).toEqual(ir);
  });
});
