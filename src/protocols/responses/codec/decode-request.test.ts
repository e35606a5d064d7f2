import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../errors.js';
import type * as Ir from '../../../translate/ir.js';
import type { Json } from '../../../translate/types.js';
import { responsesCodec } from './codec.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';

const ctx = (): Ir.TranslateContext => translateContext({
  caller: 'responses',
  upstream: 'messages',
  requestedModel: 'gpt-test',
  upstreamModel: 'claude-test',
  upstreamDialect: 'anthropic',
});

const fixture = (name: string): Json =>
  (JSON.parse(readFileSync(new URL(`../../../../test/fixtures/clients/${name}`, import.meta.url), 'utf8')) as { body: Json }).body;

const decode = (body: Json) => {
  const c = ctx();
  return { ir: responsesCodec.decodeRequest(body, c), warnings: c.warnings };
};

describe('decodeRequest: Codex fixtures', () => {
  it('first turn (gpt-5-codex): developer messages → system, tools with namespace, web_search dropped', () => {
    const body = fixture('codex-0.169.0-responses-first-turn.json');
    const { ir, warnings } = decode(body);
    expect(ir.model).toBe('gpt-5-codex');
    expect(ir.stream).toBe(true);
    expect(ir.system.map((p) => p.text)).toEqual([
      '[developer prompt, 16 979 chars]',
      '[<skills_instructions> block, 2 125 chars]',
      '[developer prompt, 341 chars]',
    ]);
    expect(ir.messages.map((m) => m.role)).toEqual(['user', 'user']);
    expect(ir.messages[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'run echo' }] });
    expect(ir.messages[0]!.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('<environment_context>') });

    const flat = ir.tools.filter((t) => t.namespace === undefined).map((t) => t.name);
    expect(flat).toEqual(['exec_command', 'write_stdin', 'request_user_input', 'view_image', 'get_goal', 'create_goal', 'update_goal']);
    const nested = ir.tools.filter((t) => t.namespace === 'multi_agent_v1').map((t) => t.name);
    expect(nested).toEqual(['close_agent', 'resume_agent', 'send_input', 'spawn_agent', 'wait_agent']);
    const exec = ir.tools[0]!;
    expect(exec).toMatchObject({ kind: 'function', name: 'exec_command', strict: false, description: expect.stringContaining('PTY') });
    expect(exec.parameters).toMatchObject({ type: 'object', required: ['cmd'] });
    expect(ir.tools.every((t) => t.kind === 'function')).toBe(true);

    expect(ir.toolChoice).toEqual({ type: 'auto' });
    expect(ir.parallelToolCalls).toBe(true);
    expect(ir.reasoning).toEqual({ summary: 'auto' });
    expect(warnings).toContain('web_search tool (hosted)');
    expect(warnings).toContain('namespace description');
    // store, include, prompt_cache_key, client_metadata: telemetry and state hints, not warnings.
    expect(warnings).toHaveLength(2);
  });

  it('tool loop: reasoning with encrypted_content kept, function_call and its output paired by call_id', () => {
    const { ir } = decode(fixture('codex-0.169.0-responses-function-call-output.json'));
    expect(ir.messages.map((m) => m.role)).toEqual(['user', 'user', 'assistant', 'user']);
    // Codex's session id, kept for the upstreams that route by it.
    expect(ir.promptCacheKey).toBe('01900000-0000-7000-8000-000000000003');
    expect(ir.messages[2]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          id: 'rs_b8e4ae26911148121c36294c',
          text: '',
          summary: ['Planning to run the echo command.'],
          encrypted: '[opaque encrypted reasoning, replay unchanged]',
        },
        {
          type: 'tool_call',
          id: 'call_940d754e53e3be300336ee6c',
          itemId: 'fc_ea3de368ba79fa55ec6bb4fc',
          name: 'exec_command',
          arguments: '{"cmd":"echo hello-from-tool"}',
          kind: 'function',
        },
      ],
    });
    expect(ir.messages[3]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          callId: 'call_940d754e53e3be300336ee6c',
          content: [{ type: 'text', text: expect.stringContaining('hello-from-tool\n') }],
        },
      ],
    });
  });

  it('default model: additional_tools item with namespaces and a custom grammar tool', () => {
    const { ir, warnings } = decode(fixture('codex-0.169.0-responses-first-turn-default-model.json'));
    expect(ir.system).toHaveLength(6);
    expect(ir.messages.map((m) => m.role)).toEqual(['user', 'user']);
    const byNamespace = (ns: string) => ir.tools.filter((t) => t.namespace === ns).map((t) => `${t.kind}:${t.name}`);
    expect(byNamespace('functions')).toEqual(['custom:exec', 'function:wait', 'function:request_user_input', 'function:request_user_input_async']);
    expect(byNamespace('clock')).toEqual(['function:sleep']);
    expect(byNamespace('collaboration')).toHaveLength(6);
    expect(ir.tools).toHaveLength(11);
    const exec = ir.tools[0]!;
    expect(exec.format).toMatchObject({ type: 'grammar', syntax: 'lark', definition: expect.stringContaining('start:') });
    expect(exec.parameters).toBeUndefined();
    expect(ir.reasoning).toEqual({ effort: 'low' });
    expect(ir.parallelToolCalls).toBe(false);
    // text.verbosity has no field upstream: listed (decode-hints.ts).
    expect(ir.responseFormat).toBeUndefined();
    expect(warnings).toEqual(['namespace description', 'text.verbosity']);
  });

  it('the openai SDK one-liner: string input', () => {
    const { ir, warnings } = decode(fixture('openai-7.57.0-responses-create.json'));
    expect(ir).toEqual({ model: 'gpt-test', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], stream: false });
    expect(warnings).toEqual([]);
  });
});

describe('decodeRequest: crafted input items', () => {
  it('instructions first, leading system/developer messages, a later developer message stays in place', () => {
    const { ir } = decode({
      model: 'm',
      instructions: 'Be brief.',
      input: [
        { role: 'system', content: 'sys' },
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'dev' }] },
        { role: 'user', content: 'hi' },
        { role: 'developer', content: 'later' },
        { role: 'user', content: 'again' },
      ],
    });
    expect(ir.system).toEqual([
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'sys' },
      { type: 'text', text: 'dev' },
    ]);
    expect(ir.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'system', content: [{ type: 'text', text: 'later' }] },
      { role: 'user', content: [{ type: 'text', text: 'again' }] },
    ]);
  });

  it('images (data URL, URL, file id, detail) and files (data, URL, id, filename)', () => {
    const { ir } = decode({
      model: 'm',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' },
            { type: 'input_image', image_url: 'https://example.com/cat.jpg', detail: 'auto' },
            { type: 'input_image', file_id: 'file-img1', detail: 'low' },
            { type: 'input_file', file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' },
            { type: 'input_file', file_url: 'https://example.com/b.pdf' },
            { type: 'input_file', file_id: 'file-abc' },
            { type: 'input_text', text: 'what is this?' },
          ],
        },
      ],
    });
    expect(ir.messages[0]!.content).toEqual([
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' }, detail: 'high' },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' }, detail: 'auto' },
      { type: 'image', source: { kind: 'file', fileId: 'file-img1' }, detail: 'low' },
      { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0=', filename: 'a.pdf' },
      { type: 'file', url: 'https://example.com/b.pdf' },
      { type: 'file', fileId: 'file-abc' },
      { type: 'text', text: 'what is this?' },
    ]);
  });

  it('consecutive assistant items form one turn; consecutive outputs one user turn', () => {
    const { ir } = decode({
      model: 'm',
      input: [
        { role: 'user', content: 'go' },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'S' }], content: [{ type: 'reasoning_text', text: 'T' }], encrypted_content: 'E' },
        { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', phase: 'commentary', content: [{ type: 'output_text', text: 'Let me', annotations: [] }, { type: 'refusal', refusal: 'no' }] },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{"a":1}' },
        { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_2', name: 'exec', input: 'console.log(1)' },
        { type: 'function_call_output', call_id: 'call_1', output: 'ok' },
        {
          type: 'custom_tool_call_output',
          call_id: 'call_2',
          output: [
            { type: 'input_text', text: 'Script completed' },
            { type: 'input_image', image_url: 'https://example.com/x.png', detail: 'auto' },
          ],
        },
        { role: 'assistant', content: 'done' },
      ],
    });
    expect(ir.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', id: 'rs_1', text: 'T', summary: ['S'], encrypted: 'E' },
          { type: 'text', text: 'Let me' },
          { type: 'refusal', text: 'no' },
          { type: 'tool_call', id: 'call_1', itemId: 'fc_1', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{"a":1}', kind: 'function' },
          { type: 'tool_call', id: 'call_2', itemId: 'ctc_1', name: 'exec', arguments: 'console.log(1)', kind: 'custom' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', callId: 'call_1', content: [{ type: 'text', text: 'ok' }] },
          {
            type: 'tool_result',
            callId: 'call_2',
            kind: 'custom',
            content: [
              { type: 'text', text: 'Script completed' },
              { type: 'image', source: { kind: 'url', url: 'https://example.com/x.png' }, detail: 'auto' },
            ],
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    ]);
  });

  it('Claude thinking carried in encrypted_content comes back signed (and redacted thinking too)', () => {
    const { ir } = decode({
      model: 'm',
      input: [
        { role: 'user', content: 'q' },
        { type: 'reasoning', id: 'rs_test', summary: [{ type: 'summary_text', text: 'I should list files.' }], content: null, encrypted_content: 'anthropic-signature:EqQBCkgIAhABGAIiQ' },
        { type: 'reasoning', id: 'rs_test2', summary: [], encrypted_content: 'anthropic-redacted:EmwKAhgBEgy3va3p' },
        { type: 'function_call', call_id: 'toolu_01', name: 'Bash', arguments: '{"command":"ls"}' },
      ],
    });
    expect(ir.messages[1]!.content.slice(0, 2)).toEqual([
      { type: 'reasoning', text: 'I should list files.', signature: 'EqQBCkgIAhABGAIiQ' },
      { type: 'reasoning', text: '', redacted: 'EmwKAhgBEgy3va3p' },
    ]);
  });

  it('compaction and hosted history items are dropped with one warning per kind', () => {
    const { ir, warnings } = decode({
      model: 'm',
      input: [
        { type: 'compaction', id: 'cmp_1', encrypted_content: 'x' },
        { role: 'user', content: 'search' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'a' } },
        { type: 'web_search_call', id: 'ws_2', status: 'completed', action: { type: 'search', query: 'b' } },
        { type: 'mcp_call', id: 'mcp_1' },
      ],
    });
    expect(ir.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'search' }] }]);
    expect(warnings).toEqual(['compaction history', 'web_search_call history', 'mcp_call history']);
  });

  it('an item_reference left unresolved (the pipeline resolves those it holds) is a 400 naming the id', () => {
    expect(() => decode({ model: 'm', input: [{ role: 'user', content: 'hi' }, { type: 'item_reference', id: 'msg_old' }] })).toThrow(
      expect.objectContaining({ status: 400, param: 'input[1].id', message: expect.stringContaining("'msg_old'") }),
    );
  });

  it('additional_tools join the tools; configuration_update sets the effort, the last one wins', () => {
    const { ir } = decode({
      model: 'm',
      tools: [{ type: 'function', name: 'top', parameters: { type: 'object', properties: {} } }],
      reasoning: { effort: 'high', summary: 'detailed' },
      input: [
        { type: 'additional_tools', role: 'developer', tools: [{ type: 'custom', name: 'apply', description: 'patch', format: { type: 'text' } }] },
        { type: 'configuration_update', reasoning: { effort: 'low' } },
        { role: 'user', content: 'x' },
        { type: 'configuration_update', reasoning: { effort: 'minimal' } },
      ],
    });
    expect(ir.tools).toEqual([
      { kind: 'function', name: 'top', parameters: { type: 'object', properties: {} } },
      { kind: 'custom', name: 'apply', description: 'patch', format: { type: 'text' } },
    ]);
    expect(ir.reasoning).toEqual({ effort: 'minimal', summary: 'detailed' });
  });
});

describe('decodeRequest: tools and parameters', () => {
  it('a function tool without strict keeps strict absent; parameters null means none', () => {
    const { ir } = decode({ model: 'm', input: 'x', tools: [{ type: 'function', name: 'f', parameters: null }] });
    expect(ir.tools).toEqual([{ kind: 'function', name: 'f' }]);
  });

  it('hosted tools are dropped with a warning each', () => {
    const { ir, warnings } = decode({
      model: 'm',
      input: 'x',
      tools: [{ type: 'file_search', vector_store_ids: ['vs'] }, { type: 'code_interpreter', container: { type: 'auto' } }, { type: 'function', name: 'f' }],
    });
    expect(ir.tools.map((t) => t.name)).toEqual(['f']);
    expect(warnings).toEqual(['file_search tool (hosted)', 'code_interpreter tool (hosted)']);
  });

  it.each([
    ['none', { type: 'none' }],
    ['auto', { type: 'auto' }],
    ['required', { type: 'required' }],
    [{ type: 'function', name: 'f' }, { type: 'tool', name: 'f' }],
    [{ type: 'custom', name: 'c' }, { type: 'tool', name: 'c' }],
  ] as const)('tool_choice %j', (choice, expected) => {
    expect(decode({ model: 'm', input: 'x', tool_choice: choice }).ir.toolChoice).toEqual(expected);
  });

  it('allowed_tools filters the tool list and keeps the mode', () => {
    const { ir } = decode({
      model: 'm',
      input: 'x',
      tools: [{ type: 'function', name: 'a' }, { type: 'function', name: 'b' }, { type: 'custom', name: 'c' }],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'a' }, { type: 'custom', name: 'c' }] },
    });
    expect(ir.tools.map((t) => t.name)).toEqual(['a', 'c']);
    expect(ir.toolChoice).toEqual({ type: 'required' });
  });

  it('a hosted tool_choice becomes auto with a warning', () => {
    const { ir, warnings } = decode({ model: 'm', input: 'x', tool_choice: { type: 'web_search_preview' } });
    expect(ir.toolChoice).toEqual({ type: 'auto' });
    expect(warnings).toEqual(['web_search_preview tool_choice (hosted)']);
  });

  it('sampling, limits, format, user and metadata', () => {
    const { ir, warnings } = decode({
      model: 'm',
      input: 'x',
      max_output_tokens: 500,
      temperature: 0.2,
      top_p: 0.9,
      parallel_tool_calls: false,
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true, description: 'd' }, verbosity: 'low' },
      user: 'old-user',
      safety_identifier: 'user-123',
      metadata: { a: '1', b: 2 },
      store: true,
      include: ['reasoning.encrypted_content'],
      service_tier: 'flex',
      top_logprobs: 3,
    });
    expect(ir).toMatchObject({
      maxOutputTokens: 500,
      temperature: 0.2,
      topP: 0.9,
      parallelToolCalls: false,
      responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true, description: 'd' },
      user: 'user-123',
      metadata: { a: '1' },
    });
    // store and the honoured include are not listed; the tier and the verbosity are (decode-hints.ts).
    expect(warnings).toEqual(['logprobs', 'service_tier flex', 'text.verbosity']);
    expect(decode({ model: 'm', input: 'x', text: { format: { type: 'json_object' } } }).ir.responseFormat).toEqual({ type: 'json_object' });
  });

  it.each([
    ['no model', { input: 'x' }],
    ['input of the wrong type', { model: 'm', input: 5 }],
    ['an item that is not an object', { model: 'm', input: ['x'] }],
    ['an unknown role', { model: 'm', input: [{ role: 'tool', content: 'x' }] }],
    ['a function_call without call_id', { model: 'm', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] }],
    ['a function tool without a name', { model: 'm', input: 'x', tools: [{ type: 'function' }] }],
    ['instructions that are not a string', { model: 'm', input: 'x', instructions: 5 }],
  ])('rejects %s with a 400', (_name, body) => {
    expect(() => decode(body)).toThrow(GatewayError);
    try {
      decode(body);
    } catch (e) {
      expect((e as GatewayError).status).toBe(400);
    }
  });
});
