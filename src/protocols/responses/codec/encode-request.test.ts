import { describe, expect, it } from 'vitest';
import type * as Ir from '../../../translate/ir.js';
import { responsesCodec } from './codec.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';

const ctx = (): Ir.TranslateContext => translateContext({
  caller: 'messages',
  upstream: 'responses',
  requestedModel: 'claude-test',
  upstreamModel: 'gpt-up',
  upstreamDialect: 'openai',
});

const base: Ir.Request = { model: 'claude-test', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], stream: false };

const encode = (request: Partial<Ir.Request>) => {
  const c = ctx();
  return { body: responsesCodec.encodeRequest({ ...base, ...request }, c), ctx: c };
};

describe('encodeRequest', () => {
  it('a minimal request: model, input, store false, stream, nothing invented', () => {
    expect(encode({}).body).toEqual({
      model: 'gpt-up',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      store: false,
      stream: false,
    });
  });

  it('system parts → instructions joined with blank lines; a later system message → developer message in place', () => {
    const { body } = encode({
      system: [
        { type: 'text', text: 'A', cacheControl: { type: 'ephemeral' } },
        { type: 'text', text: 'B' },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'system', content: [{ type: 'text', text: 'mid' }] },
        { role: 'user', content: [{ type: 'text', text: 'q2' }] },
      ],
    });
    expect(body.instructions).toBe('A\n\nB');
    expect(body.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'q' }] },
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'mid' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'q2' }] },
    ]);
  });

  it('user parts: images (base64 → data URL, URL, file id, detail defaults to auto), files, text documents', () => {
    const { body, ctx: c } = encode({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } },
            { type: 'image', source: { kind: 'url', url: 'https://x/y.jpg' }, detail: 'high' },
            { type: 'image', source: { kind: 'file', fileId: 'file-1' } },
            { type: 'file', mediaType: 'application/pdf', data: 'JVBE', filename: 'a.pdf' },
            { type: 'file', url: 'https://x/b.pdf' },
            { type: 'file', mediaType: 'text/plain', text: 'plain doc' },
          ],
        },
      ],
    });
    expect(body.input).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_image', detail: 'auto', image_url: 'data:image/png;base64,iVBO' },
          { type: 'input_image', detail: 'high', image_url: 'https://x/y.jpg' },
          { type: 'input_image', detail: 'auto', file_id: 'file-1' },
          { type: 'input_file', file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' },
          { type: 'input_file', file_url: 'https://x/b.pdf' },
          { type: 'input_text', text: 'plain doc' },
        ],
      },
    ]);
    expect(c.warnings).toEqual(['text document as text']);
  });

  it('an assistant turn: encrypted reasoning replayed, other reasoning dropped, text run as one message, calls as items', () => {
    const { body, ctx: c } = encode({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'thinking', signature: 'sig' },
            { type: 'reasoning', id: 'rs_1', text: '', summary: ['S1', 'S2'], encrypted: 'ENC' },
            { type: 'text', text: 'Let me check.' },
            { type: 'refusal', text: 'not that' },
            { type: 'tool_call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}', kind: 'function' },
            { type: 'tool_call', id: 'call_2', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{}', kind: 'function', itemId: 'fc_2' },
            { type: 'tool_call', id: 'call_3', name: 'exec', namespace: 'functions', arguments: 'console.log(1)', kind: 'custom' },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', callId: 'toolu_1', content: [{ type: 'text', text: 'sunny' }], isError: true },
            { type: 'tool_result', callId: 'call_2', content: [] },
            // A Chat or Messages caller does not say the result is for a custom tool: the call says so.
            { type: 'tool_result', callId: 'call_3', content: [{ type: 'text', text: 'a' }, { type: 'image', source: { kind: 'url', url: 'https://x/i.png' } }] },
            { type: 'text', text: 'and now?' },
          ],
        },
      ],
    });
    expect(body.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'S1' }, { type: 'summary_text', text: 'S2' }], encrypted_content: 'ENC' },
      {
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'Let me check.', annotations: [] },
          { type: 'refusal', refusal: 'not that' },
        ],
      },
      { type: 'function_call', call_id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call', call_id: 'call_2', name: 'multi_agent_v1__spawn_agent', arguments: '{}', id: 'fc_2' },
      { type: 'custom_tool_call', call_id: 'call_3', name: 'functions__exec', input: 'console.log(1)' },
      { type: 'function_call_output', call_id: 'toolu_1', output: 'sunny' },
      { type: 'function_call_output', call_id: 'call_2', output: '' },
      {
        type: 'custom_tool_call_output',
        call_id: 'call_3',
        output: [
          { type: 'input_text', text: 'a' },
          { type: 'input_image', detail: 'auto', image_url: 'https://x/i.png' },
        ],
      },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and now?' }] },
    ]);
    expect(c.warnings).toEqual(['reasoning history', 'tool error flag']);
    // Encrypted reasoning in the history: this is a reasoning model, ask for the next turn's.
    expect(body.include).toEqual(['reasoning.encrypted_content']);
    expect(c.toolNames.get('functions__exec')).toEqual({ name: 'exec', namespace: 'functions', kind: 'custom' });
  });

  it('tools: strict always explicit, namespaces flattened, custom tools stay custom; tool_choice by kind', () => {
    const { body, ctx: c } = encode({
      tools: [
        { kind: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
        { kind: 'function', name: 'strict_one', parameters: { type: 'object' }, strict: true },
        { kind: 'function', name: 'no_params' },
        { kind: 'function', name: 'spawn_agent', namespace: 'multi_agent_v1', parameters: { type: 'object' } },
        { kind: 'custom', name: 'exec', namespace: 'functions', description: 'JS', format: { type: 'grammar', syntax: 'lark', definition: 'start: x' } },
        { kind: 'function', name: 'bad name!', cacheControl: { type: 'ephemeral' } },
      ],
      toolChoice: { type: 'tool', name: 'exec', namespace: 'functions' },
      parallelToolCalls: false,
    });
    expect(body.tools).toEqual([
      { type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false },
      { type: 'function', name: 'strict_one', parameters: { type: 'object' }, strict: true },
      { type: 'function', name: 'no_params', parameters: null, strict: false },
      { type: 'function', name: 'multi_agent_v1__spawn_agent', parameters: { type: 'object' }, strict: false },
      { type: 'custom', name: 'functions__exec', description: 'JS', format: { type: 'grammar', syntax: 'lark', definition: 'start: x' } },
      { type: 'function', name: 'bad_name_', parameters: null, strict: false },
    ]);
    expect(body.tool_choice).toEqual({ type: 'custom', name: 'functions__exec' });
    expect(body.parallel_tool_calls).toBe(false);
    expect(c.toolNames.get('multi_agent_v1__spawn_agent')).toEqual({ name: 'spawn_agent', namespace: 'multi_agent_v1', kind: 'function' });
    expect(c.toolNames.get('bad_name_')).toEqual({ name: 'bad name!', kind: 'function' });
  });

  it.each([
    [{ type: 'auto' }, 'auto'],
    [{ type: 'none' }, 'none'],
    [{ type: 'required' }, 'required'],
    [{ type: 'tool', name: 'get_weather' }, { type: 'function', name: 'get_weather' }],
  ] as const)('tool_choice %j', (choice, expected) => {
    const tools: Ir.Tool[] = [{ kind: 'function', name: 'get_weather' }];
    expect(encode({ tools, toolChoice: choice }).body.tool_choice).toEqual(expected);
  });

  it('a replayed reasoning item without an id gets one made from its encrypted content: the same on every turn', () => {
    const reasoning: Ir.ReasoningPart = { type: 'reasoning', text: '', encrypted: 'ENC-A' };
    const idOf = (parts: Ir.ReasoningPart[]) =>
      (encode({ messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }, { role: 'assistant', content: parts }] }).body.input as { id?: string }[])
        .slice(1)
        .map((item) => item.id);
    const [first] = idOf([reasoning]);
    expect(first).toMatch(/^rs_[0-9a-f]{32}$/);
    expect(idOf([reasoning])).toEqual([first]);
    expect(idOf([{ ...reasoning, encrypted: 'ENC-B' }])).not.toEqual([first]);
  });

  it('prompt cache key: prompt_cache_key for OpenAI, none for a compatible server', () => {
    expect(encode({ promptCacheKey: 'sess-1' }).body.prompt_cache_key).toBe('sess-1');
    expect(encode({ promptCacheKey: 'k'.repeat(80) }).body.prompt_cache_key).toHaveLength(64);
    const c = { ...ctx(), upstreamDialect: 'compatible' as const };
    expect(responsesCodec.encodeRequest({ ...base, promptCacheKey: 'sess-1' }, c)).not.toHaveProperty('prompt_cache_key');
  });

  it('parameters, limits, format, user, metadata; stop and top_k dropped with warnings', () => {
    const { body, ctx: c } = encode({
      maxOutputTokens: 1000,
      temperature: 0.5,
      topP: 0.8,
      topK: 40,
      stop: ['END'],
      stream: true,
      responseFormat: { type: 'json_schema', schema: { type: 'object' } },
      user: 'u-1',
      metadata: { k: 'v' },
    });
    expect(body).toMatchObject({
      max_output_tokens: 1000,
      temperature: 0.5,
      top_p: 0.8,
      stream: true,
      text: { format: { type: 'json_schema', name: 'response', schema: { type: 'object' } } },
      safety_identifier: 'u-1',
      metadata: { k: 'v' },
    });
    expect(body).not.toHaveProperty('stop');
    expect(body).not.toHaveProperty('top_k');
    expect(body).not.toHaveProperty('include');
    expect(c.warnings).toEqual(['stop sequences', 'top_k']);
    expect(encode({ responseFormat: { type: 'json_object' } }).body.text).toEqual({ format: { type: 'json_object' } });
  });

  it.each([
    [{ effort: 'high' }, { effort: 'high', summary: 'auto' }, []],
    [{ effort: 'low', summary: 'concise' }, { effort: 'low', summary: 'concise' }, []],
    [{ effort: 'none' }, { effort: 'none' }, []],
    [{ effort: 'max' }, { effort: 'xhigh', summary: 'auto' }, ['reasoning effort max as xhigh']],
    [{ budgetTokens: 2000 }, { effort: 'low', summary: 'auto' }, []],
    [{ budgetTokens: 10000 }, { effort: 'medium', summary: 'auto' }, []],
    [{ budgetTokens: 32000 }, { effort: 'high', summary: 'auto' }, []],
  ] as [Ir.ReasoningRequest, object, string[]][])('reasoning %j → %j', (reasoning, expected, warnings) => {
    const { body, ctx: c } = encode({ reasoning });
    expect(body.reasoning).toEqual(expected);
    expect(body.include).toEqual(reasoning.effort === 'none' ? undefined : ['reasoning.encrypted_content']);
    expect(c.warnings).toEqual(warnings);
  });
});

describe('round trip: decodeRequest(encodeRequest(ir)) gives the IR back', () => {
  const roundTrip = (ir: Ir.Request) => {
    const c = ctx();
    const body = responsesCodec.encodeRequest(ir, c);
    return responsesCodec.decodeRequest(body, ctx());
  };

  const cases: [string, Ir.Request][] = [
    ['text only', { ...base, model: 'gpt-up' }],
    [
      'everything Responses can say',
      {
        model: 'gpt-up',
        system: [{ type: 'text', text: 'You are terse.' }],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQ' }, detail: 'low' },
              { type: 'image', source: { kind: 'url', url: 'https://x/y.png' }, detail: 'auto' },
              { type: 'file', mediaType: 'application/pdf', data: 'JVBE', filename: 'f.pdf' },
              { type: 'file', fileId: 'file-9' },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', id: 'rs_1', text: '', summary: ['Thinking about it.'], encrypted: 'gAAAA' },
              { type: 'text', text: 'Checking.' },
              { type: 'tool_call', id: 'call_1', itemId: 'fc_1', name: 'get_weather', arguments: '{"city":"Paris"}', kind: 'function' },
              { type: 'tool_call', id: 'call_2', name: 'get_weather', arguments: '{"city":"Tokyo"}', kind: 'function' },
              { type: 'tool_call', id: 'call_3', name: 'exec', arguments: 'print(1)', kind: 'custom' },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', callId: 'call_1', content: [{ type: 'text', text: 'sunny' }] },
              { type: 'tool_result', callId: 'call_2', content: [{ type: 'text', text: 'rain' }, { type: 'text', text: '12C' }] },
              { type: 'tool_result', callId: 'call_3', kind: 'custom', content: [{ type: 'text', text: '1' }] },
            ],
          },
          { role: 'system', content: [{ type: 'text', text: 'Answer in French.' }] },
          { role: 'user', content: [{ type: 'text', text: 'and?' }] },
          { role: 'assistant', content: [{ type: 'refusal', text: 'Non.' }] },
          { role: 'user', content: [{ type: 'text', text: 'please' }] },
        ],
        tools: [
          { kind: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} }, strict: false },
          { kind: 'function', name: 'strict_tool', parameters: { type: 'object' }, strict: true },
          { kind: 'custom', name: 'exec', description: 'Run code', format: { type: 'text' } },
        ],
        toolChoice: { type: 'required' },
        parallelToolCalls: true,
        maxOutputTokens: 2048,
        temperature: 1,
        topP: 0.5,
        stream: true,
        reasoning: { effort: 'medium', summary: 'auto' },
        responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
        user: 'user-1',
        metadata: { session: 's1' },
      },
    ],
    ['named tool choice', { ...base, model: 'gpt-up', tools: [{ kind: 'custom', name: 'exec', format: { type: 'text' } }], toolChoice: { type: 'tool', name: 'exec' } }],
  ];

  it.each(cases)('%s', (_name, ir) => {
    expect(roundTrip(ir)).toEqual(ir);
  });
});
