/** encodeRequest: crafted IR → the Chat body an OpenAI or compatible upstream gets, field by field. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type * as Ir from '#src/translate/ir.js';
import { CUSTOM_INPUT_SCHEMA } from '#src/translate/common/tool-args.js';
import type { Json } from '#src/translate/types.js';
import { chatCodec } from './codec.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';

type Dialect = 'openai' | 'compatible';

function ctx(dialect: Dialect): Ir.TranslateContext {
  return translateContext({
    caller: 'messages',
    upstream: 'chat',
    requestedModel: 'claude-x',
    upstreamModel: 'up-model',
    upstreamDialect: dialect,
  });
}

const base: Ir.Request = { model: 'claude-x', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], stream: false };
function encode(over: Partial<Ir.Request>, dialect: Dialect = 'openai') {
  const c = ctx(dialect);
  const body = chatCodec.encodeRequest({ ...base, ...over }, c);
  return { body, warnings: c.warnings, ctx: c };
}

describe('encodeRequest', () => {
  it('a minimal request has what Chat requires, and nothing else', () => {
    expect(encode({}).body).toEqual({ model: 'up-model', messages: [{ role: 'user', content: 'hi' }], stream: false });
  });

  it('system prompt: one leading system message; mid-conversation ones in place, as system (openai) or user text (compatible)', () => {
    const over: Partial<Ir.Request> = {
      system: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        { role: 'system', content: [{ type: 'text', text: 'C' }] },
        { role: 'user', content: [{ type: 'text', text: 'again' }] },
      ],
    };
    const openai = encode(over, 'openai');
    expect(openai.body.messages).toEqual([
      { role: 'system', content: 'A\n\nB' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'C' },
      { role: 'user', content: 'again' },
    ]);
    expect(openai.warnings).toEqual([]);
    const compatible = encode(over, 'compatible');
    expect(compatible.body.messages).toEqual([
      { role: 'system', content: 'A\n\nB' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'text', text: 'C' },
        ],
      },
      { role: 'user', content: 'again' },
    ]);
    expect(compatible.warnings).toEqual(['mid-conversation system message as user text']);
  });

  it('compatible: a system message after an assistant turn or a tool result is user text in place, never hoisted', () => {
    const call: Ir.ToolCallPart = { type: 'tool_call', id: 'call_1', name: 'f', arguments: '{}', kind: 'function' };
    const { body } = encode(
      {
        system: [{ type: 'text', text: 'S' }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'go' }] },
          { role: 'assistant', content: [call] },
          { role: 'system', content: [{ type: 'text', text: 'after the call' }] },
          { role: 'user', content: [{ type: 'tool_result', callId: 'call_1', content: [{ type: 'text', text: 'done' }] }] },
          { role: 'system', content: [{ type: 'text', text: 'after the result' }] },
        ],
      },
      'compatible',
    );
    expect(body.messages).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'user', content: 'after the call' },
      { role: 'tool', tool_call_id: 'call_1', content: 'done' },
      { role: 'user', content: 'after the result' },
    ]);
  });

  it('prompt cache key: prompt_cache_key for OpenAI (a key over 64 characters as its SHA-256), none for compatible servers', () => {
    expect(encode({ promptCacheKey: 'sess-1' }).body.prompt_cache_key).toBe('sess-1');
    const long = 'k'.repeat(65);
    expect(encode({ promptCacheKey: long }).body.prompt_cache_key).toBe(createHash('sha256').update(long).digest('hex'));
    const compatible = encode({ promptCacheKey: 'sess-1' }, 'compatible');
    expect(compatible.body).not.toHaveProperty('prompt_cache_key');
    expect(compatible.warnings).toEqual([]);
  });

  it('user parts: images as image_url (data URL, detail), files as file parts, text documents as text', () => {
    const { body, warnings } = encode({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'See' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' }, detail: 'low' },
            { type: 'image', source: { kind: 'url', url: 'https://x/y.jpg' }, detail: 'original' },
            { type: 'image', source: { kind: 'file', fileId: 'file_1' } },
            { type: 'file', mediaType: 'application/pdf', data: 'JVBE', filename: 'r.pdf' },
            { type: 'file', data: 'JVBE' },
            { type: 'file', fileId: 'file-2' },
            { type: 'file', mediaType: 'text/plain', text: 'notes' },
            { type: 'file', url: 'https://x/doc.pdf' },
          ],
        },
      ],
    });
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'See' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBO', detail: 'low' } },
          { type: 'image_url', image_url: { url: 'https://x/y.jpg', detail: 'high' } },
          { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBE', filename: 'r.pdf' } },
          { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBE', filename: 'document.pdf' } },
          { type: 'file', file: { file_id: 'file-2' } },
          { type: 'text', text: 'notes' },
        ],
      },
    ]);
    expect(warnings).toEqual(['image file id', 'file url']);
  });

  it('cache hints: kept as cache_control for compatible servers, not needed by OpenAI (it caches by itself)', () => {
    const over: Partial<Ir.Request> = {
      system: [{ type: 'text', text: 'S', cacheControl: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cacheControl: { type: 'ephemeral' } }] }],
    };
    expect(encode(over, 'compatible').body.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'S', cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] },
    ]);
    const openai = encode(over, 'openai');
    expect(openai.body.messages).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'hi' },
    ]);
    expect(openai.warnings).toEqual([]);
  });

  it('a tool loop: assistant calls (names flattened, custom as stand-in), then one tool message per result before the user text', () => {
    const { body, warnings, ctx: c } = encode({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'plan', signature: 'sig' },
            { type: 'text', text: 'Running.' },
            { type: 'tool_call', id: 'toolu_1', name: 'run', namespace: 'shell', kind: 'function', arguments: '{"cmd":"ls"}' },
            { type: 'tool_call', id: 'toolu_2', name: 'apply_patch', kind: 'custom', arguments: '*** Begin Patch' },
            { type: 'tool_call', id: 'toolu_3', name: 'noargs', kind: 'function', arguments: '' },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', callId: 'toolu_1', content: [{ type: 'text', text: 'a.txt' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AA' } }] },
            { type: 'tool_result', callId: 'toolu_2', content: [{ type: 'text', text: 'failed' }], isError: true },
            { type: 'tool_result', callId: 'toolu_3', content: [] },
            { type: 'text', text: 'and then?' },
          ],
        },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: 'Running.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'shell__run', arguments: '{"cmd":"ls"}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' } },
          { id: 'toolu_3', type: 'function', function: { name: 'noargs', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'a.txt' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'failed' },
      { role: 'tool', tool_call_id: 'toolu_3', content: '' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } }, { type: 'text', text: 'and then?' }] },
    ]);
    expect(warnings).toEqual(['reasoning history', 'image in tool result moved', 'tool error flag']);
    expect(c.toolNames.get('shell__run')).toEqual({ name: 'run', namespace: 'shell', kind: 'function' });
    expect(c.toolNames.get('apply_patch')).toEqual({ name: 'apply_patch', kind: 'custom' });
  });

  it('reasoning history goes as reasoning_content to compatible servers; refusals as content; calls alone give null content', () => {
    const { body, warnings } = encode(
      {
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'q' }] },
          { role: 'assistant', content: [{ type: 'reasoning', text: 'thinking' }, { type: 'tool_call', id: 'c', name: 'f', kind: 'function', arguments: '{}' }] },
          { role: 'user', content: [{ type: 'tool_result', callId: 'c', content: [{ type: 'text', text: 'r' }] }] },
          { role: 'assistant', content: [{ type: 'refusal', text: 'No.' }] },
          { role: 'assistant', content: [{ type: 'reasoning', text: '', redacted: 'xyz' }] },
        ],
      },
      'compatible',
    );
    expect((body.messages as Json[]).slice(1)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }], reasoning_content: 'thinking' },
      { role: 'tool', tool_call_id: 'c', content: 'r' },
      { role: 'assistant', content: 'No.' },
      { role: 'assistant', content: '' },
    ]);
    expect(warnings).toEqual(['reasoning history']);
  });

  it("reasoning_details go back as they came to compatible servers (OpenRouter), beside the text; OpenAI gets neither", () => {
    const details = [
      { type: 'reasoning.text', text: 'plan', signature: 'EqQB', format: 'anthropic-claude-v1', index: 0 },
      { type: 'reasoning.encrypted', data: 'b3BhcXVl', format: 'anthropic-claude-v1', index: 1 },
    ];
    const over: Partial<Ir.Request> = {
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'plan', details }, { type: 'tool_call', id: 'c', name: 'f', kind: 'function', arguments: '{}' }] },
        { role: 'user', content: [{ type: 'tool_result', callId: 'c', content: [{ type: 'text', text: 'r' }] }] },
      ],
    };
    const compatible = encode(over, 'compatible');
    expect((compatible.body.messages as Json[])[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
      reasoning_content: 'plan',
      reasoning_details: details,
    });
    expect(compatible.warnings).toEqual([]);
    const openai = encode(over, 'openai');
    expect((openai.body.messages as Json[])[1]).not.toHaveProperty('reasoning_details');
    expect(openai.warnings).toEqual(['reasoning history']);
  });

  it('reasoning_details in a Chat caller\'s history reach the upstream unchanged', () => {
    const details = [{ type: 'reasoning.encrypted', data: 'b3BhcXVl', id: 'rs_1', format: 'openai-responses-v1', index: 0 }];
    const c = ctx('compatible');
    const decoded = chatCodec.decodeRequest(
      {
        model: 'm',
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: null, reasoning_details: details, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c', content: 'r' },
        ],
      },
      c,
    );
    expect(decoded.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'reasoning', text: '', details }, { type: 'tool_call', id: 'c', name: 'f', kind: 'function', arguments: '{}' }] });
    const body = chatCodec.encodeRequest(decoded, c);
    expect((body.messages as Json[])[1]).toMatchObject({ reasoning_details: details });
    expect((body.messages as Json[])[1]).not.toHaveProperty('reasoning_content');
  });

  it('tools: function (default parameters, strict only when set), custom as a function stand-in with its grammar described', () => {
    const { body, warnings } = encode({
      tools: [
        { kind: 'function', name: 'get', description: 'Get', parameters: { type: 'object', properties: { a: { type: 'string' } } }, strict: true },
        { kind: 'function', name: 'ping' },
        { kind: 'custom', name: 'apply_patch', description: 'Patch files.', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } },
        { kind: 'custom', name: 'raw', format: { type: 'grammar', grammar: { syntax: 'regex', definition: '\\d+' } } },
        { kind: 'custom', name: 'free', format: { type: 'text' } },
        { kind: 'function', name: 'spawn', namespace: 'agents', parameters: { type: 'object' } },
      ],
      toolChoice: { type: 'tool', name: 'spawn', namespace: 'agents' },
      parallelToolCalls: false,
    });
    expect(body.tools).toEqual([
      { type: 'function', function: { name: 'get', description: 'Get', parameters: { type: 'object', properties: { a: { type: 'string' } } }, strict: true } },
      { type: 'function', function: { name: 'ping', parameters: { type: 'object', properties: {} } } },
      { type: 'function', function: { name: 'apply_patch', description: 'Patch files.\n\nInput format: Lark grammar: start: "x"', parameters: CUSTOM_INPUT_SCHEMA } },
      { type: 'function', function: { name: 'raw', description: 'Input format: Regex grammar: \\d+', parameters: CUSTOM_INPUT_SCHEMA } },
      { type: 'function', function: { name: 'free', parameters: CUSTOM_INPUT_SCHEMA } },
      { type: 'function', function: { name: 'agents__spawn', parameters: { type: 'object' } } },
    ]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'agents__spawn' } });
    expect(body.parallel_tool_calls).toBe(false);
    expect(warnings).toEqual(['custom tool grammar']);
  });

  it('a long grammar is cut', () => {
    const { body } = encode({ tools: [{ kind: 'custom', name: 'g', format: { type: 'grammar', syntax: 'lark', definition: 'x'.repeat(10_000) } }] });
    const description = ((body.tools as Json[])[0]!.function as Json).description as string;
    expect(description.length).toBe(4000);
    expect(description.endsWith('…')).toBe(true);
  });

  it.each([
    [{ type: 'auto' }, 'auto'],
    [{ type: 'none' }, 'none'],
    [{ type: 'required' }, 'required'],
    [{ type: 'tool', name: 'get' }, { type: 'function', function: { name: 'get' } }],
  ] as const)('tool choice %j', (choice, expected) => {
    expect(encode({ tools: [{ kind: 'function', name: 'get' }], toolChoice: choice }).body.tool_choice).toEqual(expected);
  });

  it('no tool_choice or parallel_tool_calls without tools (OpenAI rejects them)', () => {
    const { body } = encode({ toolChoice: { type: 'none' }, parallelToolCalls: true });
    expect(body).not.toHaveProperty('tool_choice');
    expect(body).not.toHaveProperty('parallel_tool_calls');
  });

  it('parameters in the openai dialect', () => {
    const { body, warnings } = encode({
      maxOutputTokens: 1000,
      temperature: 0.7,
      topP: 0.9,
      topK: 40,
      stop: ['a', 'b', 'c', 'd', 'e'],
      stream: true,
      reasoning: { effort: 'xhigh', summary: 'auto' },
      responseFormat: { type: 'json_schema', schema: { type: 'object' } },
      user: 'u1',
      metadata: { k: 'v' },
    });
    expect(body).toEqual({
      model: 'up-model',
      messages: [{ role: 'user', content: 'hi' }],
      max_completion_tokens: 1000,
      temperature: 0.7,
      top_p: 0.9,
      stop: ['a', 'b', 'c', 'd'],
      reasoning_effort: 'xhigh',
      response_format: { type: 'json_schema', json_schema: { name: 'response', schema: { type: 'object' } } },
      safety_identifier: 'u1',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(warnings).toEqual(['reasoning summary', 'top_k', 'metadata', 'stop sequences beyond 4']);
  });

  it('parameters in the compatible dialect', () => {
    const { body, warnings } = encode(
      {
        maxOutputTokens: 1000,
        topK: 40,
        stop: ['a', 'b', 'c', 'd', 'e'],
        reasoning: { budgetTokens: 4096 },
        responseFormat: { type: 'json_schema', name: 'out', description: 'd', schema: { type: 'object' }, strict: true },
        user: 'u1',
      },
      'compatible',
    );
    expect(body).toEqual({
      model: 'up-model',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 1000,
      top_k: 40,
      stop: ['a', 'b', 'c', 'd', 'e'],
      reasoning_effort: 'medium',
      response_format: { type: 'json_schema', json_schema: { name: 'out', description: 'd', schema: { type: 'object' }, strict: true } },
      user: 'u1',
      stream: false,
    });
    expect(warnings).toEqual([]);
  });

  it("an end-user id over OpenAI's 64 characters (Claude Code's JSON user_id) goes as its SHA-256; compatible servers get it whole", () => {
    const claudeCode = JSON.stringify({ device_id: 'd'.repeat(64), account_uuid: '', session_id: '5f0e7a34-8d0c-4d6e-9a41-0a2f3c1b9e77' });
    const hashed = encode({ user: claudeCode }).body.safety_identifier;
    expect(hashed).toBe(createHash('sha256').update(claudeCode).digest('hex'));
    expect(hashed).toHaveLength(64);
    expect(encode({ user: 'u'.repeat(64) }).body.safety_identifier).toBe('u'.repeat(64));
    expect(encode({ user: claudeCode }, 'compatible').body.user).toBe(claudeCode);
  });

  it.each([
    [1024, 'low'],
    [2048, 'low'],
    [8192, 'medium'],
    [8193, 'high'],
  ])('a thinking budget of %i becomes reasoning_effort %s', (budgetTokens, effort) => {
    expect(encode({ reasoning: { budgetTokens } }).body.reasoning_effort).toBe(effort);
  });

  it.each([[{ type: 'text' }], [{ type: 'json_object' }]] as const)('response format %j', (format) => {
    expect(encode({ responseFormat: format }).body.response_format).toEqual(format);
  });
});
