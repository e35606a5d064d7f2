/**
 * Messages request → IR: the real client fixtures (Claude Code, both SDK majors) and crafted
 * requests covering every mapping, checked field by field.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '#src/errors.js';
import type * as Ir from '#src/translate/ir.js';
import type { Json } from '#src/translate/types.js';
import { messagesCodec } from './codec.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';

function ctx(): Ir.TranslateContext {
  return translateContext({
    caller: 'messages',
    upstream: 'chat',
    requestedModel: 'claude-test',
    upstreamModel: 'up-model',
    upstreamDialect: 'openai',
  });
}

const fixture = (name: string): Json =>
  (JSON.parse(readFileSync(new URL(`../../../../test/fixtures/clients/${name}`, import.meta.url), 'utf8')) as { body: Json }).body;

const decode = (body: Json, c = ctx()) => ({ ir: messagesCodec.decodeRequest(body, c), warnings: c.warnings });
const base = { model: 'claude-test', max_tokens: 256 };
const user = (content: unknown) => ({ role: 'user', content });

describe('decodeRequest: real client requests', () => {
  it("keeps Claude Code's billing line for an Anthropic upstream only", () => {
    const body = fixture('claude-code-2.1.330-messages-tool-result.json');
    const toAnthropic = messagesCodec.decodeRequest(body, { ...ctx(), upstream: 'messages' });
    expect(toAnthropic.system[0]?.text).toMatch(/^x-anthropic-billing-header: cc_version=/);
    expect(decode(body).ir.system[0]?.text).not.toMatch(/billing/);
  });

  it('Claude Code tool-result turn', () => {
    const body = fixture('claude-code-2.1.330-messages-tool-result.json');
    const { ir, warnings } = decode(body);
    expect(ir.model).toBe('claude-opus-5-5');
    expect(ir.stream).toBe(true);
    expect(ir.maxOutputTokens).toBe(128000);
    // The Anthropic billing line stays behind when the upstream is another provider (it is 'chat' here).
    expect(ir.system).toEqual([
      { type: 'text', text: "You are a Claude agent, built on Anthropic's Claude Agent SDK.", cacheControl: { type: 'ephemeral' } },
      { type: 'text', text: '[system prompt, 7 028 chars]', cacheControl: { type: 'ephemeral' } },
    ]);
    expect(ir.messages.map((m) => m.role)).toEqual(['user', 'system', 'assistant', 'user']);
    expect(ir.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: '[system-reminder, 580 chars]' },
        { type: 'text', text: 'run echo via bash' },
      ],
    });
    expect(ir.messages[1]).toEqual({
      role: 'system',
      content: [{ type: 'text', text: "[mid-conversation system message starting '# Environment', 9 198 chars]" }],
    });
    expect(ir.messages[2]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'The user wants me to run echo through the Bash tool.', signature: '[opaque thinking signature, replay unchanged]' },
        { type: 'text', text: 'Let me run a tool.' },
        {
          type: 'tool_call',
          id: 'toolu_1c24cc9fb320ff21144f7168',
          name: 'Bash',
          kind: 'function',
          arguments: '{"command":"echo hello-from-tool","description":"Echo a test string"}',
        },
      ],
    });
    expect(ir.messages[3]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          callId: 'toolu_1c24cc9fb320ff21144f7168',
          content: [{ type: 'text', text: 'hello-from-tool' }],
          isError: false,
          cacheControl: { type: 'ephemeral' },
        },
      ],
    });
    expect(ir.tools.map((t) => t.name)).toEqual([
      'Agent', 'Bash', 'Edit', 'ListAgents', 'Read', 'ReportFindings', 'ScheduleWakeup', 'Skill', 'ToolSearch', 'Workflow', 'Write',
    ]);
    const bash = ir.tools[1]!;
    expect(bash.kind).toBe('function');
    expect(bash.description).toBe('[tool description, 2 110 chars]');
    expect(bash.parameters).toEqual((body.tools as Json[])[1]!.input_schema);
    // A deferred tool that no tool search has loaded is not shown to the model, as on Anthropic.
    expect(ir.tools.some((t) => t.name === 'DeferredToolPlaceholder')).toBe(false);
    // adaptive thinking at the stated effort
    expect(ir.reasoning).toEqual({ effort: 'medium' });
    expect(ir.user).toBe((body.metadata as Json).user_id);
    // The session id inside user_id is the conversation's prompt-cache key, the same as Claude Code's session header.
    expect(ir.promptCacheKey).toBe('00000000-0000-4000-8000-000000000001');
    expect(ir.toolChoice).toBeUndefined();
    // context_management is clear_thinking with keep: 'all', which clears nothing: dropped without a word.
    expect(warnings).toEqual([]);
  });

  it('Claude Code first turn: the mid-conversation system message keeps its cache_control', () => {
    const { ir } = decode(fixture('claude-code-2.1.330-messages-first-turn.json'));
    expect(ir.messages[1]).toEqual({
      role: 'system',
      content: [{ type: 'text', text: "[mid-conversation system message starting '# Environment', 9 198 chars]", cacheControl: { type: 'ephemeral' } }],
    });
  });

  it.each(['anthropic-sdk-1.12.0-messages-create.json', 'anthropic-sdk-0.137.0-messages-create.json'])('%s', (name) => {
    const { ir, warnings } = decode(fixture(name));
    expect(ir).toEqual({
      model: 'claude-test',
      system: [],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [],
      maxOutputTokens: 256,
      stream: false,
    });
    expect(warnings).toEqual([]);
  });
});

describe('decodeRequest: crafted requests', () => {
  it.each([
    ['current Claude Code (JSON)', '{"device_id":"ab12","account_uuid":"","session_id":"5f1c0000-0000-4000-8000-00000000000a"}', '5f1c0000-0000-4000-8000-00000000000a'],
    ['older Claude Code', 'user_ab12cd_account_0000-11_session_5f1c0000-0000-4000-8000-00000000000a', '5f1c0000-0000-4000-8000-00000000000a'],
    ['JSON without a session', '{"device_id":"ab12"}', undefined],
    ['any other user id', 'u-1', undefined],
    ['text that only looks like JSON', '{not json', undefined],
  ])('prompt-cache key from metadata.user_id: %s', (_name, userId, key) => {
    expect(decode({ ...base, messages: [user('hi')], metadata: { user_id: userId } }).ir.promptCacheKey).toBe(key);
  });

  it('system as a string, sampling, stop sequences, user id', () => {
    const { ir } = decode({
      ...base,
      system: 'Be brief.',
      messages: [user('hi')],
      temperature: 0.3,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ['END', 'STOP'],
      metadata: { user_id: 'u-1' },
      stream: false,
    });
    expect(ir.system).toEqual([{ type: 'text', text: 'Be brief.' }]);
    expect(ir.temperature).toBe(0.3);
    expect(ir.topP).toBe(0.9);
    expect(ir.topK).toBe(40);
    expect(ir.stop).toEqual(['END', 'STOP']);
    expect(ir.user).toBe('u-1');
    expect(ir.stream).toBe(false);
  });

  it('multi-turn with consecutive same-role turns kept as sent', () => {
    const { ir } = decode({
      ...base,
      messages: [user('a'), user([{ type: 'text', text: 'b' }]), { role: 'assistant', content: 'c' }, user('d')],
    });
    expect(ir.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'a' }] },
      { role: 'user', content: [{ type: 'text', text: 'b' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'c' }] },
      { role: 'user', content: [{ type: 'text', text: 'd' }] },
    ]);
  });

  it('images: base64, url, file; with cache_control', () => {
    const { ir } = decode({
      ...base,
      messages: [
        user([
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' }, cache_control: { type: 'ephemeral', ttl: '1h' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.png' } },
          { type: 'image', source: { type: 'file', file_id: 'file_011' } },
          { type: 'text', text: 'What are these?' },
        ]),
      ],
    });
    expect(ir.messages[0]!.content).toEqual([
      { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQ' }, cacheControl: { type: 'ephemeral', ttl: '1h' } },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.png' } },
      { type: 'image', source: { kind: 'file', fileId: 'file_011' } },
      { type: 'text', text: 'What are these?' },
    ]);
  });

  it('documents: base64 PDF, plain text, content, url, file id', () => {
    const c = ctx();
    const { ir } = decode(
      {
        ...base,
        messages: [
          user([
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' }, title: 'report.pdf' },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain words' }, cache_control: { type: 'ephemeral' } },
            { type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] } },
            { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' }, citations: { enabled: true } },
            { type: 'document', source: { type: 'file', file_id: 'file_022' } },
          ]),
        ],
      },
      c,
    );
    expect(ir.messages[0]!.content).toEqual([
      { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0x', filename: 'report.pdf' },
      { type: 'file', mediaType: 'text/plain', text: 'plain words', cacheControl: { type: 'ephemeral' } },
      { type: 'file', mediaType: 'text/plain', text: 'one\n\ntwo' },
      { type: 'file', mediaType: 'application/pdf', url: 'https://example.com/a.pdf' },
      { type: 'file', fileId: 'file_022' },
    ]);
    expect(c.warnings).toEqual(['document citations']);
  });

  it('tool results: string, blocks with an image, is_error, search_result as text', () => {
    const c = ctx();
    const { ir } = decode(
      {
        ...base,
        messages: [
          user([
            { type: 'tool_result', tool_use_id: 'toolu_a', content: 'ok' },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_b',
              is_error: true,
              content: [
                { type: 'text', text: 'failed, screenshot:' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
              ],
            },
            { type: 'tool_result', tool_use_id: 'toolu_c' },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_d',
              content: [{ type: 'search_result', source: 'https://kb/1', title: 'KB', content: [{ type: 'text', text: 'fact' }] }],
            },
            { type: 'text', text: 'continue' },
          ]),
        ],
      },
      c,
    );
    expect(ir.messages[0]!.content).toEqual([
      { type: 'tool_result', callId: 'toolu_a', content: [{ type: 'text', text: 'ok' }] },
      {
        type: 'tool_result',
        callId: 'toolu_b',
        isError: true,
        content: [
          { type: 'text', text: 'failed, screenshot:' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } },
        ],
      },
      { type: 'tool_result', callId: 'toolu_c', content: [] },
      { type: 'tool_result', callId: 'toolu_d', content: [{ type: 'text', text: 'KB\nhttps://kb/1\n\nfact' }] },
      { type: 'text', text: 'continue' },
    ]);
    expect(c.warnings).toEqual(['search_result as text']);
  });

  it('assistant history: thinking, redacted thinking, tool_use with cache_control; server tool blocks dropped', () => {
    const c = ctx();
    const { ir } = decode(
      {
        ...base,
        messages: [
          user('q'),
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hmm', signature: 'sig==' },
              { type: 'redacted_thinking', data: 'opaque' },
              { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
              { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
              { type: 'text', text: '' },
              { type: 'tool_use', id: 'toolu_1', name: 'get', input: { a: [1, { b: null }] }, cache_control: { type: 'ephemeral' } },
            ],
          },
        ],
      },
      c,
    );
    expect(ir.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'hmm', signature: 'sig==' },
        { type: 'reasoning', text: '', redacted: 'opaque' },
        { type: 'tool_call', id: 'toolu_1', name: 'get', kind: 'function', arguments: '{"a":[1,{"b":null}]}', cacheControl: { type: 'ephemeral' } },
      ],
    });
    expect(c.warnings).toEqual(['web_search tool (server)', 'server tool results']);
  });

  it('tools: client tools kept, server tools dropped with a warning', () => {
    const c = ctx();
    const { ir } = decode(
      {
        ...base,
        messages: [user('q')],
        tools: [
          {
            name: 'get_weather',
            description: 'Weather',
            input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
            strict: true,
            cache_control: { type: 'ephemeral' },
            input_examples: [{ city: 'Paris' }],
            eager_input_streaming: true,
          },
          { type: 'custom', name: 'noop', input_schema: { type: 'object' } },
          { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
          { type: 'bash_20250124', name: 'bash' },
          { type: 'text_editor_20250728', name: 'str_replace_based_edit_tool' },
        ],
      },
      c,
    );
    expect(ir.tools).toEqual([
      {
        kind: 'function',
        name: 'get_weather',
        description: 'Weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        strict: true,
        cacheControl: { type: 'ephemeral' },
      },
      { kind: 'function', name: 'noop', parameters: { type: 'object' } },
    ]);
    expect(c.warnings).toEqual(['tool input_examples', 'web_search tool (server)', 'bash tool (server)', 'str_replace_based_edit_tool tool (server)']);
  });

  it('deferred tools are offered once a tool search has named them in a tool_reference, as Anthropic shows them', () => {
    const deferred = (name: string) => ({ name, input_schema: { type: 'object' }, defer_loading: true });
    const tools = [{ name: 'ToolSearch', input_schema: { type: 'object' } }, deferred('mcp__a'), deferred('mcp__b')];
    const first = decode({ ...base, messages: [user('find a')], tools });
    expect(first.ir.tools.map((t) => t.name)).toEqual(['ToolSearch']);
    expect(first.warnings).toEqual([]);

    const searched = decode({
      ...base,
      tools,
      messages: [
        user('find a'),
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ToolSearch', input: { query: 'a' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_reference', tool_name: 'mcp__a' }] }] },
      ],
    });
    // Loaded tools keep their place in the list, so the list only grows at its positions.
    expect(searched.ir.tools.map((t) => t.name)).toEqual(['ToolSearch', 'mcp__a']);
    // The search's answer reads as the tool's name.
    expect(searched.ir.messages.at(-1)!.content[0]).toMatchObject({ type: 'tool_result', callId: 'toolu_1', content: [{ type: 'text', text: 'mcp__a' }] });
    expect(searched.warnings).toEqual([]);
  });

  const tool = { name: 'get', input_schema: { type: 'object' } };
  it.each<[unknown, Partial<Ir.Request>]>([
    [{ type: 'auto' }, { toolChoice: { type: 'auto' } }],
    [{ type: 'any' }, { toolChoice: { type: 'required' } }],
    [{ type: 'tool', name: 'get' }, { toolChoice: { type: 'tool', name: 'get' } }],
    [{ type: 'none' }, { toolChoice: { type: 'none' } }],
    [{ type: 'auto', disable_parallel_tool_use: true }, { toolChoice: { type: 'auto' }, parallelToolCalls: false }],
    [{ type: 'any', disable_parallel_tool_use: true }, { toolChoice: { type: 'required' }, parallelToolCalls: false }],
    [{ type: 'tool', name: 'get', disable_parallel_tool_use: false }, { toolChoice: { type: 'tool', name: 'get' } }],
  ])('tool_choice %j', (choice, expected) => {
    const { ir } = decode({ ...base, messages: [user('q')], tools: [tool], tool_choice: choice });
    expect({ toolChoice: ir.toolChoice, parallelToolCalls: ir.parallelToolCalls }).toEqual({ toolChoice: undefined, parallelToolCalls: undefined, ...expected });
  });

  it('a tool_choice naming a dropped server tool is dropped too (Claude Code WebSearch sub-request)', () => {
    const c = ctx();
    const { ir } = decode(
      {
        ...base,
        messages: [user('search')],
        tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 8 }],
        tool_choice: { type: 'tool', name: 'web_search' },
        thinking: { type: 'disabled' },
      },
      c,
    );
    expect(ir.tools).toEqual([]);
    expect(ir.toolChoice).toBeUndefined();
    expect(ir.reasoning).toBeUndefined();
    expect(c.warnings).toEqual(['web_search tool (server)', 'tool_choice for a dropped tool']);
  });

  it.each<[Json, Ir.ReasoningRequest | undefined]>([
    [{ thinking: { type: 'enabled', budget_tokens: 1024 } }, { effort: 'low', budgetTokens: 1024 }],
    [{ thinking: { type: 'enabled', budget_tokens: 2048 } }, { effort: 'low', budgetTokens: 2048 }],
    [{ thinking: { type: 'enabled', budget_tokens: 2049 } }, { effort: 'medium', budgetTokens: 2049 }],
    [{ thinking: { type: 'enabled', budget_tokens: 8192 } }, { effort: 'medium', budgetTokens: 8192 }],
    [{ thinking: { type: 'enabled', budget_tokens: 8193 } }, { effort: 'high', budgetTokens: 8193 }],
    [{ thinking: { type: 'enabled', budget_tokens: 30000 }, output_config: { effort: 'max' } }, { effort: 'max', budgetTokens: 30000 }],
    [{ thinking: { type: 'adaptive' } }, { effort: 'medium' }],
    [{ thinking: { type: 'adaptive', display: 'omitted' }, output_config: { effort: 'xhigh' } }, { effort: 'xhigh' }],
    [{ thinking: { type: 'disabled' } }, undefined],
    [{ output_config: { effort: 'low' } }, { effort: 'low' }],
    [{}, undefined],
  ])('thinking %j', (fields, expected) => {
    const { ir } = decode({ ...base, messages: [user('q')], ...fields });
    expect(ir.reasoning).toEqual(expected);
  });

  it('output_config.format json_schema → responseFormat', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };
    const { ir } = decode({ ...base, messages: [user('q')], output_config: { format: { type: 'json_schema', schema } } });
    expect(ir.responseFormat).toEqual({ type: 'json_schema', schema });
  });

  it('mid-conversation system messages with blocks and output_config', () => {
    const { ir } = decode({
      ...base,
      messages: [user('q'), { role: 'system', content: [{ type: 'text', text: 'note', cache_control: { type: 'ephemeral' } }], output_config: { effort: 'low' } }],
    });
    expect(ir.messages[1]).toEqual({ role: 'system', content: [{ type: 'text', text: 'note', cacheControl: { type: 'ephemeral' } }] });
  });

  it('meaningful untranslated fields are warned about; service fields are not', () => {
    const c = ctx();
    decode(
      {
        ...base,
        messages: [user('q')],
        context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
        safeguards: [{ type: 'dangerous_tool_use' }],
        service_tier: 'auto',
        speed: 'fast',
        cache_control: { type: 'ephemeral' },
        container: 'cntr_1',
      },
      c,
    );
    expect(c.warnings).toEqual(['context_management', 'safeguards']);
  });

  it.each([
    [{ edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] }, []],
    [{ edits: [] }, []],
    [{}, []],
    [{ edits: [{ type: 'clear_thinking_20251015' }] }, ['context_management']],
    [{ edits: [{ type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 1 } }] }, ['context_management']],
    [{ edits: [{ type: 'clear_thinking_20251015', keep: 'all' }, { type: 'clear_tool_uses_20250919' }] }, ['context_management']],
    ['auto', ['context_management']],
  ])('context_management %j: warned only when it would clear something', (value, warnings) => {
    const c = ctx();
    decode({ ...base, messages: [user('q')], context_management: value }, c);
    expect(c.warnings).toEqual(warnings);
  });

  it('rejects what cannot be decoded at all', () => {
    expect(() => decode({ ...base, messages: [{ role: 'tool', content: 'x' }] })).toThrow(GatewayError);
    expect(() => decode({ max_tokens: 1, messages: [user('x')] })).toThrow(/model/);
    expect(() => decode({ ...base, messages: [] })).toThrow(/messages/);
  });
});
