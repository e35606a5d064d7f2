/**
 * IR → Messages request: every mapping checked field by field, what Anthropic requires
 * (max_tokens, alternation, tool results first, no empty text, object input schemas),
 * and the cache-hint check on Claude Code's tool-result turn.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type * as Ir from '#src/translate/ir.js';
import { CUSTOM_INPUT_SCHEMA } from '#src/translate/common/tool-args.js';
import type { Json } from '#src/translate/types.js';
import { DEFAULT_MAX_TOKENS, THINKING_BUDGETS, messagesCodec } from './codec.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';

// The caller is Messages unless a test says otherwise: OpenAI-protocol callers also get automatic
// cache breakpoints, which have their own test below and would clutter every other expectation.
function ctx(extra: Partial<Ir.TranslateContext> = {}): Ir.TranslateContext {
  return translateContext({
    caller: 'messages',
    upstream: 'messages',
    requestedModel: 'gpt-test',
    upstreamModel: 'claude-up',
    upstreamDialect: 'anthropic',
    ...extra,
  });
}

const hi: Ir.Message = { role: 'user', content: [{ type: 'text', text: 'hi' }] };
const req = (extra: Partial<Ir.Request> = {}): Ir.Request => ({ model: 'gpt-test', system: [], messages: [hi], tools: [], stream: false, ...extra });
const encode = (request: Ir.Request, c = ctx()) => ({ body: messagesCodec.encodeRequest(request, c), warnings: c.warnings });
const fnTool = (name: string, extra: Partial<Ir.Tool> = {}): Ir.Tool => ({ kind: 'function', name, parameters: { type: 'object', properties: {} }, ...extra });

describe('encodeRequest: the required fields', () => {
  it('a minimal request', () => {
    const { body, warnings } = encode(req());
    expect(body).toEqual({ model: 'claude-up', max_tokens: DEFAULT_MAX_TOKENS, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    expect(DEFAULT_MAX_TOKENS).toBe(8192);
    expect(warnings).toEqual([]);
  });

  it('max_tokens: the request, then the model configuration, then the default', () => {
    expect(encode(req({ maxOutputTokens: 100 }), ctx({ maxOutputTokens: 5000 })).body.max_tokens).toBe(100);
    expect(encode(req(), ctx({ maxOutputTokens: 5000 })).body.max_tokens).toBe(5000);
  });

  it('stream only when true', () => {
    expect(encode(req({ stream: true })).body.stream).toBe(true);
    expect('stream' in encode(req({ stream: false })).body).toBe(false);
  });

  it('a conversation with nothing to send is refused', () => {
    expect(() => encode(req({ messages: [{ role: 'system', content: [{ type: 'text', text: 's' }] }] }))).toThrow(/at least one/);
  });
});

describe('encodeRequest: system and turns', () => {
  it('system parts keep cache_control; leading system messages join silently, later ones stay in place as user text', () => {
    const { body, warnings } = encode(
      req({
        system: [
          { type: 'text', text: 'A', cacheControl: { type: 'ephemeral' } },
          { type: 'text', text: '' },
        ],
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'B' }] },
          hi,
          { role: 'system', content: [{ type: 'text', text: 'C', cacheControl: { type: 'ephemeral' } }] },
          { role: 'user', content: [{ type: 'text', text: 'again' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
          { role: 'system', content: [{ type: 'text', text: 'D' }] },
        ],
      }),
    );
    expect(body.system).toEqual([
      { type: 'text', text: 'A', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'B' },
    ]);
    // C joins the user turn before it (the user turn after it merges in too); D, after an assistant turn, is a user turn of its own
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'text', text: 'C', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'again' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      { role: 'user', content: [{ type: 'text', text: 'D' }] },
    ]);
    expect([...new Set(warnings)]).toEqual(['mid-conversation system message as user text']);
  });

  it('a later turn leaves the earlier request as it was: system text mid-conversation changes no prefix', () => {
    const turn1: Ir.Message[] = [hi, { role: 'system', content: [{ type: 'text', text: 'note 1' }] }];
    const turn2: Ir.Message[] = [
      ...turn1,
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      { role: 'system', content: [{ type: 'text', text: 'note 2' }] },
      { role: 'user', content: [{ type: 'text', text: 'next' }] },
    ];
    // The gateway's own cache breakpoint moves to each request's last block: set aside, as a cache-aware upstream does.
    const unmarked = (messages: Ir.Message[]) =>
      JSON.parse(JSON.stringify(encode(req({ system: [{ type: 'text', text: 'S' }], messages })).body, (k, v: unknown) => (k === 'cache_control' ? undefined : v))) as Json;
    const first = unmarked(turn1);
    const second = unmarked(turn2);
    expect(second.system).toEqual(first.system);
    const earlier = first.messages as Json[];
    expect((second.messages as Json[]).slice(0, earlier.length)).toEqual(earlier);
    expect(earlier).toHaveLength(1);
  });

  it('leading system messages alone give no warning', () => {
    const { warnings } = encode(req({ messages: [{ role: 'system', content: [{ type: 'text', text: 'S' }] }, hi] }));
    expect(warnings).toEqual([]);
  });

  it('tool results: regrouped into one user turn right after the tool calls, first in it; empty text dropped', () => {
    const { body } = encode(
      req({
        tools: [fnTool('get')],
        messages: [
          hi,
          {
            role: 'assistant',
            content: [
              { type: 'text', text: '' },
              { type: 'text', text: 'Checking.' },
              { type: 'tool_call', id: 'call_1', name: 'get', kind: 'function', arguments: '{"q":1}' },
              { type: 'tool_call', id: 'call_2', name: 'get', kind: 'function', arguments: '{"q":2}' },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', callId: 'call_1', content: [{ type: 'text', text: 'one' }] }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'also this' },
              { type: 'tool_result', callId: 'call_2', content: [{ type: 'text', text: '' }], isError: true },
            ],
          },
        ],
      }),
    );
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_1', name: 'get', input: { q: 1 } },
          { type: 'tool_use', id: 'call_2', name: 'get', input: { q: 2 } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'one' },
          { type: 'tool_result', tool_use_id: 'call_2', is_error: true },
          { type: 'text', text: 'also this' },
        ],
      },
    ]);
  });

  it('tool result content with an image and cache_control stays a block list', () => {
    const { body } = encode(
      req({
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                callId: 'c',
                cacheControl: { type: 'ephemeral' },
                content: [
                  { type: 'text', text: 'shot', cacheControl: { type: 'ephemeral' } },
                  { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } },
                ],
              },
            ],
          },
        ],
      }),
    );
    expect((body.messages as Json[])[0]!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'c',
        content: [
          { type: 'text', text: 'shot', cache_control: { type: 'ephemeral' } },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
        ],
        cache_control: { type: 'ephemeral' },
      },
    ]);
  });

  it('tool call ids are made safe for Anthropic, the same way in calls and results', () => {
    const { body } = encode(
      req({
        messages: [
          hi,
          { role: 'assistant', content: [{ type: 'tool_call', id: 'call:a/1', name: 'get', kind: 'function', arguments: '{}' }] },
          { role: 'user', content: [{ type: 'tool_result', callId: 'call:a/1', content: [{ type: 'text', text: 'r' }] }] },
        ],
      }),
    );
    const [, assistant, result] = body.messages as Json[];
    expect((assistant!.content as Json[])[0]!.id).toBe('call_a_1');
    expect((result!.content as Json[])[0]!.tool_use_id).toBe('call_a_1');
  });

  it('assistant history: signed thinking replayed, redacted kept, unsigned reasoning dropped once, refusal as text', () => {
    const { body, warnings } = encode(
      req({
        messages: [
          hi,
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'thought', signature: 'sig/+=' },
              { type: 'reasoning', text: '', redacted: 'opaque' },
              { type: 'reasoning', text: 'openai summary', encrypted: 'gAAA', id: 'rs_1', summary: ['s'] },
              { type: 'reasoning', text: 'plain reasoning_content' },
              { type: 'refusal', text: 'I cannot help with that.' },
            ],
          },
          { role: 'user', content: [{ type: 'text', text: 'ok' }] },
        ],
      }),
    );
    expect((body.messages as Json[])[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'thought', signature: 'sig/+=' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'I cannot help with that.' },
      ],
    });
    expect(warnings).toEqual(['reasoning history']);
  });

  it('an assistant turn left empty disappears and the user turns around it merge', () => {
    const { body } = encode(
      req({
        messages: [hi, { role: 'assistant', content: [{ type: 'reasoning', text: 'x' }] }, { role: 'user', content: [{ type: 'text', text: 'more' }] }],
      }),
    );
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'text', text: 'more' }] }]);
  });

  it('tool call arguments: object, invalid JSON kept as _raw, custom input, namespace flattened', () => {
    const { body, warnings } = encode(
      req({
        messages: [
          hi,
          {
            role: 'assistant',
            content: [
              { type: 'tool_call', id: 'c1', name: 'get', kind: 'function', arguments: '' },
              { type: 'tool_call', id: 'c2', name: 'get', kind: 'function', arguments: '{"a": tru' },
              { type: 'tool_call', id: 'c3', name: 'exec', kind: 'custom', arguments: 'console.log("hi")', namespace: 'functions' },
              { type: 'tool_call', id: 'c4', name: 'spawn', kind: 'function', arguments: '{"n":1}', namespace: 'multi_agent_v1', cacheControl: { type: 'ephemeral' } },
            ],
          },
        ],
      }),
    );
    expect((body.messages as Json[])[1]!.content).toEqual([
      { type: 'tool_use', id: 'c1', name: 'get', input: {} },
      { type: 'tool_use', id: 'c2', name: 'get', input: { _raw: '{"a": tru' } },
      { type: 'tool_use', id: 'c3', name: 'functions__exec', input: { input: 'console.log("hi")' } },
      { type: 'tool_use', id: 'c4', name: 'multi_agent_v1__spawn', input: { n: 1 }, cache_control: { type: 'ephemeral' } },
    ]);
    expect(warnings).toEqual(['invalid tool-call JSON kept as _raw']);
  });
});

describe('encodeRequest: images and files', () => {
  const userWith = (...content: Ir.UserPart[]): Ir.Request => req({ messages: [{ role: 'user', content }] });
  const blocks = (r: Ir.Request, c = ctx()) => (encode(r, c).body.messages as Json[])[0]!.content;

  it('images: base64 (data: prefix stripped), data URL, http URL, detail and file ids', () => {
    const c = ctx();
    expect(
      blocks(
        userWith(
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' }, cacheControl: { type: 'ephemeral' } },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'data:image/png;base64,iVBOR' } },
          { type: 'image', source: { kind: 'url', url: 'data:image/webp;base64,UklGR' }, detail: 'auto' },
          { type: 'image', source: { kind: 'url', url: 'https://example.com/a.jpg' }, detail: 'high' },
          { type: 'image', source: { kind: 'file', fileId: 'file-abc' } },
        ),
        c,
      ),
    ).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' }, cache_control: { type: 'ephemeral' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/webp', data: 'UklGR' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/a.jpg' } },
    ]);
    expect(c.warnings).toEqual(['image detail', 'file id reference']);
  });

  it('files: PDF base64 or data URL, PDF URL, text, base64 text, image file, unknown type, file id', () => {
    const c = ctx();
    expect(
      blocks(
        userWith(
          { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0x', filename: 'a.pdf' },
          { type: 'file', data: 'data:application/pdf;base64,JVBERi0y', filename: 'b.pdf' },
          { type: 'file', url: 'https://example.com/c.pdf', cacheControl: { type: 'ephemeral' } },
          { type: 'file', mediaType: 'text/plain', text: 'notes' },
          { type: 'file', mediaType: 'text/markdown', data: Buffer.from('# hi').toString('base64') },
          { type: 'file', mediaType: 'image/gif', data: 'R0lGOD' },
          { type: 'file', mediaType: 'application/zip', data: 'UEsDB' },
          { type: 'file', fileId: 'file-xyz' },
        ),
        c,
      ),
    ).toEqual([
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' }, title: 'a.pdf' },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0y' }, title: 'b.pdf' },
      { type: 'document', source: { type: 'url', url: 'https://example.com/c.pdf' }, cache_control: { type: 'ephemeral' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'notes' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: '# hi' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/gif', data: 'R0lGOD' } },
    ]);
    expect(c.warnings).toEqual(['application/zip file', 'file id reference']);
  });
});

describe('encodeRequest: tools and tool_choice', () => {
  it('function tools: input_schema always an object schema, strict only when true, cache_control kept', () => {
    const { body } = encode(
      req({
        tools: [
          { kind: 'function', name: 'none_params' },
          { kind: 'function', name: 'typed', description: 'd', parameters: { type: 'object', properties: { a: { type: 'string' } } }, strict: true },
          { kind: 'function', name: 'untyped', parameters: { properties: { a: { type: 'string' } } }, strict: false, cacheControl: { type: 'ephemeral' } },
          { kind: 'function', name: 'get', namespace: 'ns', parameters: { type: 'object' } },
          { kind: 'function', name: 'bad name!', parameters: { type: 'object' } },
        ],
      }),
    );
    expect(body.tools).toEqual([
      { name: 'none_params', input_schema: { type: 'object', properties: {} } },
      { name: 'typed', description: 'd', input_schema: { type: 'object', properties: { a: { type: 'string' } } }, strict: true },
      { name: 'untyped', input_schema: { type: 'object', properties: { a: { type: 'string' } } }, cache_control: { type: 'ephemeral' } },
      { name: 'ns__get', input_schema: { type: 'object' } },
      { name: 'bad_name_', input_schema: { type: 'object' } },
    ]);
    expect('tool_choice' in body).toBe(false);
  });

  it('custom tools: a function stand-in with one input parameter and the format in the description', () => {
    const c = ctx();
    const { body } = encode(
      req({
        tools: [
          { kind: 'custom', name: 'exec', namespace: 'functions', description: 'Run code.', format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' } },
          { kind: 'custom', name: 'note', format: { type: 'text' } },
          { kind: 'custom', name: 'chat_style', format: { type: 'grammar', grammar: { syntax: 'regex', definition: '^\\d+$' } } },
        ],
      }),
      c,
    );
    expect(body.tools).toEqual([
      { name: 'functions__exec', description: 'Run code.\n\nThe `input` parameter must be text matching this lark grammar:\nstart: /.+/', input_schema: CUSTOM_INPUT_SCHEMA },
      { name: 'note', description: 'The `input` parameter is free-form text.', input_schema: CUSTOM_INPUT_SCHEMA },
      { name: 'chat_style', description: 'The `input` parameter must be text matching this regex grammar:\n^\\d+$', input_schema: CUSTOM_INPUT_SCHEMA },
    ]);
    expect(c.toolNames.get('functions__exec')).toEqual({ name: 'exec', namespace: 'functions', kind: 'custom' });
  });

  it.each<[Partial<Ir.Request>, Json | undefined]>([
    [{ toolChoice: { type: 'auto' } }, { type: 'auto' }],
    [{ toolChoice: { type: 'required' } }, { type: 'any' }],
    [{ toolChoice: { type: 'none' } }, { type: 'none' }],
    [{ toolChoice: { type: 'tool', name: 'get' } }, { type: 'tool', name: 'get' }],
    [{ toolChoice: { type: 'tool', name: 'run', namespace: 'ns' } }, { type: 'tool', name: 'ns__run' }],
    [{ parallelToolCalls: false }, { type: 'auto', disable_parallel_tool_use: true }],
    [{ parallelToolCalls: true }, undefined],
    [{ toolChoice: { type: 'required' }, parallelToolCalls: false }, { type: 'any', disable_parallel_tool_use: true }],
    [{ toolChoice: { type: 'tool', name: 'get' }, parallelToolCalls: false }, { type: 'tool', name: 'get', disable_parallel_tool_use: true }],
    [{ toolChoice: { type: 'none' }, parallelToolCalls: false }, { type: 'none' }],
  ])('tool_choice for %j', (fields, expected) => {
    const { body } = encode(req({ tools: [fnTool('get'), fnTool('run', { namespace: 'ns' })], ...fields }));
    expect(body.tool_choice).toEqual(expected);
  });

  it('no tools, no tool_choice (Anthropic rejects a choice without tools)', () => {
    expect('tool_choice' in encode(req({ toolChoice: { type: 'required' }, parallelToolCalls: false })).body).toBe(false);
  });
});

describe('encodeRequest: sampling, reasoning, format, metadata', () => {
  it.each<[Partial<Ir.Request>, Json, string[]]>([
    [{ temperature: 0.7 }, { temperature: 0.7 }, []],
    [{ temperature: 1.6 }, { temperature: 1 }, ['temperature clamped']],
    [{ temperature: 0.2, topP: 0.5 }, { temperature: 0.2 }, ['top_p (temperature set)']],
    [{ topP: 0.5, topK: 20 }, { top_p: 0.5, top_k: 20 }, []],
    [{ stop: ['END'] }, { stop_sequences: ['END'] }, []],
    [{ stop: [] }, {}, []],
  ])('%j', (fields, expected, warnings) => {
    const got = encode(req(fields));
    const { model: _m, max_tokens: _t, messages: _s, ...rest } = got.body;
    expect(rest).toEqual(expected);
    expect(got.warnings).toEqual(warnings);
  });

  it.each(Object.entries(THINKING_BUDGETS))('effort %s → budget %d', (effort, budget) => {
    const { body } = encode(req({ reasoning: { effort: effort as Ir.ReasoningEffort }, maxOutputTokens: 64000 }));
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: budget });
  });

  it('the budget table', () => {
    expect(THINKING_BUDGETS).toEqual({ minimal: 1024, low: 1024, medium: 4096, high: 16384, xhigh: 32768, max: 32768 });
  });

  it.each<[Ir.ReasoningRequest | undefined, number, Json | undefined, string[]]>([
    [undefined, 8192, undefined, []],
    [{ effort: 'none' }, 8192, undefined, []],
    [{ summary: 'auto' }, 8192, undefined, []],
    [{ budgetTokens: 3000 }, 8192, { type: 'enabled', budget_tokens: 3000 }, []],
    [{ effort: 'high', budgetTokens: 2000 }, 8192, { type: 'enabled', budget_tokens: 2000 }, []],
    [{ effort: 'high' }, 8192, { type: 'enabled', budget_tokens: 8191 }, []],
    [{ effort: 'high' }, 1500, { type: 'enabled', budget_tokens: 1499 }, []],
    [{ effort: 'low' }, 1025, { type: 'enabled', budget_tokens: 1024 }, []],
    [{ effort: 'low' }, 1024, undefined, ['thinking (max_tokens too small)']],
  ])('reasoning %j with max_tokens %d', (reasoning, maxOutputTokens, thinking, warnings) => {
    const got = encode(req({ maxOutputTokens, ...(reasoning ? { reasoning } : {}) }));
    expect(got.body.thinking).toEqual(thinking);
    expect(got.body.max_tokens).toBe(maxOutputTokens);
    expect(got.warnings).toEqual(warnings);
  });

  it('thinking on: temperature other than 1, low top_p and top_k are dropped', () => {
    const got = encode(req({ reasoning: { effort: 'medium' }, temperature: 0.5, topP: 0.5, topK: 10 }));
    expect(got.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 4096 } });
    expect(['temperature', 'top_p', 'top_k'].filter((k) => k in got.body)).toEqual([]);
    expect(got.warnings).toEqual(['temperature (thinking on)', 'top_p (thinking on)', 'top_k (thinking on)']);
    expect(encode(req({ reasoning: { effort: 'medium' }, temperature: 1 })).body.temperature).toBe(1);
  });

  it('thinking off when a tool is forced, or when the last tool-call turn has no signed thinking', () => {
    const forced = encode(req({ reasoning: { effort: 'high' }, tools: [fnTool('get')], toolChoice: { type: 'required' } }));
    expect(forced.body.thinking).toBeUndefined();
    expect(forced.warnings).toEqual(['thinking (forced tool choice)']);

    const loop = (first: Ir.AssistantPart[]): Ir.Request =>
      req({
        reasoning: { effort: 'high' },
        tools: [fnTool('get')],
        messages: [
          hi,
          { role: 'assistant', content: [...first, { type: 'tool_call', id: 'c', name: 'get', kind: 'function', arguments: '{}' }] },
          { role: 'user', content: [{ type: 'tool_result', callId: 'c', content: [{ type: 'text', text: 'r' }] }] },
        ],
      });
    const unsigned = encode(loop([{ type: 'reasoning', text: 'from gpt', encrypted: 'x' }]));
    expect(unsigned.body.thinking).toBeUndefined();
    expect(unsigned.warnings).toEqual(['reasoning history', 'thinking (unsigned tool history)']);
    const signed = encode(loop([{ type: 'reasoning', text: 't', signature: 's' }]));
    // No caller limit: max_tokens leaves the default answer room on top of the high-effort budget.
    expect(signed.body.thinking).toEqual({ type: 'enabled', budget_tokens: 16384 });
    expect(signed.body.max_tokens).toBe(16384 + 8192);
    expect(signed.warnings).toEqual([]);
  });

  it('marks cache breakpoints for OpenAI-protocol callers that sent none, and only for them', () => {
    const request = req({
      system: [{ type: 'text', text: 'S1' }, { type: 'text', text: 'S2' }],
      tools: [fnTool('a'), fnTool('b')],
      messages: [hi, { role: 'assistant', content: [{ type: 'text', text: 'yo' }] }, hi],
    });
    const fromCodex = encode(request, ctx({ caller: 'responses' })).body as { system: Json[]; tools: Json[]; messages: { content: Json[] }[] };
    const marked = (blocks: Json[]) => blocks.map((b) => b.cache_control !== undefined);
    expect(marked(fromCodex.system)).toEqual([false, true]);
    expect(marked(fromCodex.tools)).toEqual([false, true]);
    expect(fromCodex.messages.map((m) => marked(m.content))).toEqual([[false], [false], [true]]);
    // Claude Code marks its own, and a caller's own hints are never added to.
    expect(JSON.stringify(encode(request, ctx({ caller: 'messages' })).body)).not.toContain('cache_control');
    const hinted = req({ ...request, system: [{ type: 'text', text: 'S', cacheControl: { type: 'ephemeral', ttl: '1h' } }] });
    expect(JSON.stringify(encode(hinted, ctx({ caller: 'chat' })).body).match(/cache_control/g)).toHaveLength(1);
  });

  it('fits the thinking budget under a limit the caller or the model config sets', () => {
    const ask = (maxOutputTokens: number | undefined, modelLimit: number | undefined) =>
      encode(
        req({ reasoning: { effort: 'high' }, ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}) }),
        ctx(modelLimit !== undefined ? { maxOutputTokens: modelLimit } : {}),
      ).body;
    expect(ask(4000, undefined)).toMatchObject({ max_tokens: 4000, thinking: { budget_tokens: 3999 } });
    expect(ask(undefined, 10_000)).toMatchObject({ max_tokens: 10_000, thinking: { budget_tokens: 9999 } });
  });

  it('response formats', () => {
    const schema = { type: 'object', properties: {} };
    const strictNamed = encode(req({ responseFormat: { type: 'json_schema', name: 'out', strict: true, schema } }));
    expect(strictNamed.body.output_config).toEqual({ format: { type: 'json_schema', schema } });
    expect(strictNamed.warnings).toEqual([]);
    const jsonObject = encode(req({ responseFormat: { type: 'json_object' } }));
    expect(jsonObject.body.output_config).toBeUndefined();
    expect(jsonObject.warnings).toEqual(['json_object response format']);
    expect(encode(req({ responseFormat: { type: 'text' } })).body.output_config).toBeUndefined();
  });

  it('user → metadata.user_id; OpenAI metadata dropped with a warning', () => {
    const got = encode(req({ user: 'u-9', metadata: { k: 'v' } }));
    expect(got.body.metadata).toEqual({ user_id: 'u-9' });
    expect(got.warnings).toEqual(['metadata']);
  });

  it('at most four cache breakpoints: the earliest extras go', () => {
    const eph = { type: 'ephemeral' };
    const got = encode(
      req({
        tools: [fnTool('t', { cacheControl: eph })],
        system: [
          { type: 'text', text: 's1', cacheControl: eph },
          { type: 'text', text: 's2', cacheControl: eph },
        ],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'u1', cacheControl: eph }] },
          { role: 'assistant', content: [{ type: 'text', text: 'a1' }] },
          { role: 'user', content: [{ type: 'tool_result', callId: 'x', cacheControl: eph, content: [{ type: 'text', text: 'r', cacheControl: eph }] }] },
        ],
      }),
    );
    expect(JSON.stringify(got.body).match(/cache_control/g)).toHaveLength(4);
    expect((got.body.tools as Json[])[0]!.cache_control).toBeUndefined();
    expect((got.body.system as Json[])[0]!.cache_control).toBeUndefined();
    expect((got.body.system as Json[])[1]!.cache_control).toEqual(eph);
    expect(got.warnings).toEqual(['cache breakpoints over 4']);
  });
});

describe('cache hints survive Messages → IR → Messages (Claude Code tool-result turn)', () => {
  const original = (JSON.parse(readFileSync(new URL('../../../../test/fixtures/clients/claude-code-2.1.330-messages-tool-result.json', import.meta.url), 'utf8')) as { body: Json }).body;

  it('keeps cache_control markers, the thinking signature byte for byte, and the tool_result first', () => {
    const c = ctx({ caller: 'messages' });
    const ir = messagesCodec.decodeRequest(original, c);
    const body = messagesCodec.encodeRequest(ir, c);
    const system = body.system as Json[];
    // the original system blocks, unchanged; the mid-conversation system message stays in place, joined to the user turn before it
    expect(system).toEqual(original.system);
    const messages = body.messages as Json[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect((messages[0]!.content as Json[]).at(-1)).toEqual({ type: 'text', text: "[mid-conversation system message starting '# Environment', 9 198 chars]" });
    const originalAssistant = (original.messages as Json[])[2]!;
    expect(messages[1]).toEqual(originalAssistant);
    const thinking = (messages[1]!.content as Json[])[0]!;
    expect(thinking.signature).toBe(((originalAssistant.content as Json[])[0]!).signature);
    const lastUser = messages[2]!.content as Json[];
    expect(lastUser[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1c24cc9fb320ff21144f7168', cache_control: { type: 'ephemeral' } });
    expect(lastUser[0]).toEqual(((original.messages as Json[])[3]!.content as Json[])[0]);
    expect(JSON.stringify(body).match(/"cache_control"/g)).toHaveLength(JSON.stringify(original).match(/"cache_control"/g)!.length);
    // The deferred tool no tool search has loaded yet is not offered.
    expect(body.tools).toEqual((original.tools as Json[]).filter((t) => t.defer_loading !== true));
    expect(c.warnings).toEqual(['mid-conversation system message as user text']);
  });
});
