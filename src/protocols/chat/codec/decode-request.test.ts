/** decodeRequest: a real SDK request and crafted ones covering every mapping, checked field by field. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '#src/errors.js';
import type * as Ir from '#src/translate/ir.js';
import type { Json } from '#src/translate/types.js';
import { chatCodec } from './codec.js';

function ctx(): Ir.TranslateContext {
  let n = 0;
  return {
    caller: 'chat',
    upstream: 'messages',
    requestedModel: 'gpt-test',
    upstreamModel: 'claude-x',
    upstreamDialect: 'anthropic',
    now: () => 1_700_000_000_000,
    newId: (p) => `${p}test${++n}`,
    warnings: [],
    toolNames: new Map(),
  };
}

const decode = (body: Json, c = ctx()) => ({ ir: chatCodec.decodeRequest(body, c), warnings: c.warnings });
const user = (content: unknown) => ({ model: 'm', messages: [{ role: 'user', content }] });

describe('decodeRequest', () => {
  it('the openai SDK fixture', () => {
    const fixture = JSON.parse(readFileSync(new URL('../../../../test/fixtures/clients/openai-7.57.0-chat-completions-create.json', import.meta.url), 'utf8')) as { body: Json };
    expect(decode(fixture.body)).toEqual({
      ir: { model: 'gpt-test', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], stream: false },
      warnings: [],
    });
  });

  it('leading system and developer messages are the system prompt; later ones stay in place', () => {
    const { ir, warnings } = decode({
      model: 'm',
      messages: [
        { role: 'system', content: 'You are helpful.' },
        { role: 'developer', content: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'Cite.', prompt_cache_breakpoint: { mode: 'explicit' } }] },
        { role: 'user', content: 'hi' },
        { role: 'developer', content: 'Now in French.' },
      ],
    });
    expect(ir.system).toEqual([
      { type: 'text', text: 'You are helpful.' },
      { type: 'text', text: 'Be brief.', cacheControl: { type: 'ephemeral' } },
      { type: 'text', text: 'Cite.', cacheControl: { type: 'ephemeral' } },
    ]);
    expect(ir.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'system', content: [{ type: 'text', text: 'Now in French.' }] },
    ]);
    expect(warnings).toEqual([]);
  });

  it('user parts: text, images (data URL and http, detail kept), files (data URL, bare base64, id); audio dropped', () => {
    const { ir, warnings } = decode(
      user([
        { type: 'text', text: 'Look:' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' } },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        { type: 'input_audio', input_audio: { data: 'UklGR', format: 'wav' } },
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQ=', filename: 'a.pdf' } },
        { type: 'file', file: { file_data: 'JVBERi0xLjc=', filename: 'b.pdf' } },
        { type: 'file', file: { file_id: 'file-abc' } },
      ]),
    );
    expect(ir.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Look:' },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' }, detail: 'high' },
        { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' } },
        { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0xLjQ=', filename: 'a.pdf' },
        { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0xLjc=', filename: 'b.pdf' },
        { type: 'file', fileId: 'file-abc' },
      ],
    });
    expect(warnings).toEqual(['audio input']);
  });

  it('a tool loop: reasoning_content, text, function and custom calls; consecutive tool messages become one user message', () => {
    const { ir, warnings } = decode({
      model: 'm',
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: 'Running both.',
          reasoning_content: 'I need two tools.',
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'shell', arguments: '{"cmd":"ls"}' } },
            { id: 'call_b', type: 'custom', custom: { name: 'apply_patch', input: '*** Begin Patch' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: 'a.txt' },
        { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: 'Done' }] },
        { role: 'user', content: 'thanks' },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }] },
        { role: 'assistant', content: null, refusal: 'Still no.' },
      ],
    });
    expect(ir.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'I need two tools.' },
          { type: 'text', text: 'Running both.' },
          { type: 'tool_call', id: 'call_a', name: 'shell', arguments: '{"cmd":"ls"}', kind: 'function' },
          { type: 'tool_call', id: 'call_b', name: 'apply_patch', arguments: '*** Begin Patch', kind: 'custom' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', callId: 'call_a', content: [{ type: 'text', text: 'a.txt' }] },
          { type: 'tool_result', callId: 'call_b', content: [{ type: 'text', text: 'Done' }], kind: 'custom' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
      { role: 'assistant', content: [{ type: 'refusal', text: 'No.' }] },
      { role: 'assistant', content: [{ type: 'refusal', text: 'Still no.' }] },
    ]);
    expect(warnings).toEqual([]);
  });

  it('the deprecated functions / function_call / function role map onto tools and calls', () => {
    const { ir } = decode({
      model: 'm',
      functions: [{ name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } }],
      function_call: { name: 'lookup' },
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{"q":"x"}' } },
        { role: 'function', name: 'lookup', content: 'found' },
      ],
    });
    expect(ir.tools).toEqual([{ kind: 'function', name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } }]);
    expect(ir.toolChoice).toEqual({ type: 'tool', name: 'lookup' });
    expect(ir.messages.slice(1)).toEqual([
      // The generated id comes from the call's place in `messages`: the same on every turn that resends it.
      { role: 'assistant', content: [{ type: 'tool_call', id: 'call_m1_0', name: 'lookup', arguments: '{"q":"x"}', kind: 'function' }] },
      { role: 'user', content: [{ type: 'tool_result', callId: 'call_m1_0', content: [{ type: 'text', text: 'found' }] }] },
    ]);
  });

  it('tool calls without an id get one from their place, so a later turn that resends them gets the same ids', () => {
    const history = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'a', arguments: '{}' } }, { type: 'function', function: { name: 'b', arguments: '{}' } }] },
    ];
    const ids = (messages: Json[]) =>
      decode({ model: 'm', messages }).ir.messages.flatMap((m) => m.content.flatMap((p) => (p.type === 'tool_call' ? [p.id] : [])));
    const turn1 = ids(history);
    const turn2 = ids([...history, { role: 'tool', tool_call_id: 'call_m1_0', content: 'x' }, { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'a', arguments: '{}' } }] }]);
    expect(turn1).toEqual(['call_m1_0', 'call_m1_1']);
    expect(turn2).toEqual(['call_m1_0', 'call_m1_1', 'call_m3_0']);
  });

  it('tools: function (strict kept) and custom (format kept); others dropped with a note', () => {
    const grammar = { type: 'grammar', grammar: { syntax: 'lark', definition: 'start: "x"' } };
    const { ir, warnings } = decode({
      ...user('x'),
      tools: [
        { type: 'function', function: { name: 'get', description: 'Get it', parameters: { type: 'object', properties: {} }, strict: true } },
        { type: 'function', function: { name: 'bare' } },
        { type: 'custom', custom: { name: 'apply_patch', description: 'Patch', format: grammar } },
        { type: 'code_interpreter' },
      ],
      parallel_tool_calls: false,
    });
    expect(ir.tools).toEqual([
      { kind: 'function', name: 'get', description: 'Get it', parameters: { type: 'object', properties: {} }, strict: true },
      { kind: 'function', name: 'bare' },
      { kind: 'custom', name: 'apply_patch', description: 'Patch', format: grammar },
    ]);
    expect(ir.parallelToolCalls).toBe(false);
    expect(warnings).toEqual(['code_interpreter tool']);
  });

  it.each([
    ['none', { type: 'none' }, []],
    ['auto', { type: 'auto' }, []],
    ['required', { type: 'required' }, []],
    [{ type: 'function', function: { name: 'get' } }, { type: 'tool', name: 'get' }, []],
    [{ type: 'custom', custom: { name: 'apply_patch' } }, { type: 'tool', name: 'apply_patch' }, []],
    [{ type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [] } }, { type: 'required' }, ['allowed_tools']],
    [{ type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } }, { type: 'auto' }, ['allowed_tools']],
  ])('tool_choice %j', (choice, expected, warns) => {
    const { ir, warnings } = decode({ ...user('x'), tool_choice: choice });
    expect(ir.toolChoice).toEqual(expected);
    expect(warnings).toEqual(warns);
  });

  it('sampling, limits, reasoning, user and metadata', () => {
    const { ir, warnings } = decode({
      ...user('x'),
      max_completion_tokens: 500,
      max_tokens: 100,
      temperature: 1.5,
      top_p: 0.9,
      top_k: 40,
      stop: 'END',
      stream: true,
      stream_options: { include_usage: true },
      reasoning_effort: 'high',
      safety_identifier: 'user-1',
      user: 'old-user',
      metadata: { team: 'a', n: 1 },
      store: false,
      service_tier: 'auto',
      prompt_cache_key: 'k',
    });
    expect(ir).toMatchObject({
      maxOutputTokens: 500,
      temperature: 1.5,
      topP: 0.9,
      topK: 40,
      stop: ['END'],
      stream: true,
      reasoning: { effort: 'high' },
      promptCacheKey: 'k',
      user: 'user-1',
      metadata: { team: 'a' },
    });
    expect(warnings).toEqual([]);
    expect(decode({ ...user('x'), max_tokens: 100, stop: ['a', 'b'], user: 'u' }).ir).toMatchObject({ maxOutputTokens: 100, stop: ['a', 'b'], user: 'u' });
  });

  it.each([
    [{ type: 'text' }, { type: 'text' }],
    [{ type: 'json_object' }, { type: 'json_object' }],
    [
      { type: 'json_schema', json_schema: { name: 'out', description: 'd', schema: { type: 'object' }, strict: true } },
      { type: 'json_schema', name: 'out', description: 'd', schema: { type: 'object' }, strict: true },
    ],
  ])('response_format %j', (format, expected) => {
    expect(decode({ ...user('x'), response_format: format }).ir.responseFormat).toEqual(expected);
  });

  it.each([
    [{ n: 2 }, 'n > 1'],
    [{ logprobs: true, top_logprobs: 3 }, 'logprobs'],
    [{ modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'wav' } }, 'audio output'],
    [{ prediction: { type: 'content', content: 'x' } }, 'prediction'],
    [{ web_search_options: {} }, 'web_search (hosted)'],
    [{ logit_bias: { '50256': -100 } }, 'logit_bias'],
    [{ frequency_penalty: 0.5 }, 'frequency_penalty'],
    [{ presence_penalty: -1 }, 'presence_penalty'],
    [{ seed: 42 }, 'seed'],
    [{ verbosity: 'low' }, 'verbosity'],
    [{ reasoning_effort: 'extreme' }, 'reasoning_effort extreme'],
  ])('%j is noted as %s', (extra, warning) => {
    expect(decode({ ...user('x'), ...extra }).warnings).toEqual([warning]);
  });

  it('harmless defaults are not noted', () => {
    expect(decode({ ...user('x'), n: 1, logprobs: false, frequency_penalty: 0, presence_penalty: 0, logit_bias: {} }).warnings).toEqual([]);
  });

  it('a message name is noted; an empty assistant turn is skipped', () => {
    const { ir, warnings } = decode({ model: 'm', messages: [{ role: 'user', name: 'bob', content: 'x' }, { role: 'assistant', content: '' }] });
    expect(ir.messages).toHaveLength(1);
    expect(warnings).toEqual(['message name']);
  });

  it.each([
    [{ model: 'm', messages: [{ role: 'tool', content: 'x' }] }, /tool_call_id/],
    [{ model: 'm', messages: [{ role: 'robot', content: 'x' }] }, /role/],
    [{ model: 'm', messages: [] }, /messages/],
    [{ messages: [{ role: 'user', content: 'x' }] }, /model/],
  ])('rejects %j with a 400', (body, message) => {
    let error: unknown;
    try {
      decode(body);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(400);
    expect((error as GatewayError).message).toMatch(message);
  });
});
