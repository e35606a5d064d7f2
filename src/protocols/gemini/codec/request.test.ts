/**
 * Requests both ways: Gemini → IR → Gemini gives the request back (fixtures/requests.ts), what a
 * Gemini request means in the IR, and what an IR request becomes for Gemini (tools, tool choice,
 * thinking per model generation, the JSON Schema subset with every dropped keyword listed).
 */
import { describe, expect, it } from 'vitest';
import type * as Ir from '#src/translate/ir.js';
import type { Json } from '#src/translate/types.js';
import { translateContext } from '../../../../test/helpers/translate-context.js';
import { geminiCodec } from './codec.js';
import { ROUND_TRIP } from './fixtures/requests.js';

const ctx = (upstreamModel = 'gemini-2.5-flash', extra: Partial<Ir.TranslateContext> = {}): Ir.TranslateContext =>
  translateContext({ caller: 'gemini', upstream: 'gemini', requestedModel: 'gemini-2.5-flash', upstreamModel, upstreamDialect: 'openai', ...extra });

const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as Json;

describe('Gemini → IR → Gemini', () => {
  it.each(ROUND_TRIP)('%s', (_name, body) => {
    const c = ctx();
    const ir = geminiCodec.decodeRequest(plain(body), c);
    expect(geminiCodec.encodeRequest(ir, c)).toEqual(plain(body));
    expect(c.warnings).toEqual([]);
  });
});

const user = (text: string): Ir.Message => ({ role: 'user', content: [{ type: 'text', text }] });
const base: Ir.Request = { model: 'm', system: [], messages: [user('hi')], tools: [], stream: false };

describe('a Gemini request in the IR', () => {
  it('takes the model from the path and the stream flag from the method', () => {
    const ir = geminiCodec.decodeRequest({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, ctx('x', { requestedModel: 'claude-x', stream: true }));
    expect(ir).toMatchObject({ model: 'claude-x', stream: true, messages: [user('hi')] });
  });

  it.each([
    ['thinkingLevel HIGH with thoughts', { thinkingLevel: 'HIGH', includeThoughts: true }, { effort: 'high', summary: 'auto' }],
    ['thinkingBudget 0', { thinkingBudget: 0 }, { effort: 'none' }],
    ['dynamic thinking', { thinkingBudget: -1 }, { effort: 'medium' }],
    ['a budget', { thinkingBudget: 2048 }, { effort: 'low', budgetTokens: 2048 }],
  ])('thinking: %s', (_name, thinkingConfig, reasoning) => {
    const ir = geminiCodec.decodeRequest({ contents: [{ parts: [{ text: 'x' }] }], generationConfig: { thinkingConfig } }, ctx());
    expect(ir.reasoning).toEqual(reasoning);
  });

  it('function responses without ids answer the open calls of that name, in order', () => {
    const ir = geminiCodec.decodeRequest(
      {
        contents: [
          { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }, { functionCall: { name: 'f', args: { n: 2 } } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'f', response: { result: 1 } } }, { functionResponse: { name: 'f', response: { output: 'two' } } }] },
        ],
      },
      ctx(),
    );
    expect(ir.messages[1]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', callId: 'call_0_0', content: [{ type: 'text', text: '{"result":1}' }] },
        { type: 'tool_result', callId: 'call_0_1', content: [{ type: 'text', text: 'two' }] },
      ],
    });
  });

  it('reads OpenAPI schemas (`parameters`, `responseSchema`) as JSON Schema', () => {
    const ir = geminiCodec.decodeRequest(
      {
        contents: [{ parts: [{ text: 'x' }] }],
        tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT', properties: { a: { type: 'STRING', nullable: true } }, propertyOrdering: ['a'] } }] }],
        generationConfig: { responseMimeType: 'application/json', responseSchema: { type: 'ARRAY', items: { type: 'INTEGER' } } },
      },
      ctx(),
    );
    expect(ir.tools[0]?.parameters).toEqual({ type: 'object', properties: { a: { type: ['string', 'null'] } } });
    expect(ir.responseFormat).toEqual({ type: 'json_schema', schema: { type: 'array', items: { type: 'integer' } } });
  });

  it.each([
    ['candidateCount > 1', { generationConfig: { candidateCount: 2 } }, 'candidateCount > 1'],
    ['server tools', { tools: [{ googleSearch: {} }] }, 'googleSearch tool (server)'],
    ['safety settings', { safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] }, 'safetySettings'],
    ['VALIDATED mode', { tools: [{ functionDeclarations: [{ name: 'f' }] }], toolConfig: { functionCallingConfig: { mode: 'VALIDATED' } } }, 'function calling mode VALIDATED as AUTO'],
  ])('lists what it cannot carry: %s', (_name, extra, warning) => {
    const c = ctx();
    geminiCodec.decodeRequest({ contents: [{ parts: [{ text: 'x' }] }], ...extra }, c);
    expect(c.warnings).toEqual([warning]);
  });

  it('refuses a body without contents', () => {
    expect(() => geminiCodec.decodeRequest({}, ctx())).toThrow(/contents/);
  });
});

describe('an IR request for Gemini', () => {
  it.each([
    ['gemini-2.5-flash', { effort: 'high' }, { thinkingBudget: 24576, includeThoughts: true }, []],
    ['gemini-2.5-pro', { effort: 'high' }, { thinkingBudget: 24576, includeThoughts: true }, []],
    ['gemini-2.5-flash', { effort: 'none' }, { thinkingBudget: 0 }, []],
    ['gemini-2.5-pro', { effort: 'none' }, { thinkingBudget: 128 }, ['reasoning off (model always thinks)']],
    ['gemini-2.5-flash', { effort: 'medium', budgetTokens: 3000 }, { thinkingBudget: 3000, includeThoughts: true }, []],
    ['gemini-3-pro-preview', { effort: 'medium' }, { thinkingLevel: 'HIGH', includeThoughts: true }, []],
    ['gemini-3-flash-preview', { effort: 'minimal' }, { thinkingLevel: 'MINIMAL', includeThoughts: true }, []],
    ['gemini-3-pro-preview', { effort: 'low', budgetTokens: 1024 }, { thinkingLevel: 'LOW', includeThoughts: true }, []],
  ] as const)('%s, %o → %o', (model, reasoning, thinkingConfig, warnings) => {
    const c = ctx(model);
    const body = geminiCodec.encodeRequest({ ...base, reasoning }, c) as { generationConfig: Json };
    expect(body.generationConfig.thinkingConfig).toEqual(thinkingConfig);
    expect(c.warnings).toEqual(warnings);
  });

  it('tools: names flattened, custom tools as a function with one input, the forced tool by its upstream name', () => {
    const c = ctx();
    const body = geminiCodec.encodeRequest(
      {
        ...base,
        tools: [
          { kind: 'function', name: 'run', namespace: 'shell', parameters: { type: 'object', properties: {} } },
          { kind: 'custom', name: 'apply_patch', description: 'Patch files' },
        ],
        toolChoice: { type: 'tool', name: 'run', namespace: 'shell' },
        messages: [user('go'), { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'apply_patch', kind: 'custom', arguments: '*** Begin Patch' }] }],
      },
      c,
    ) as Json;
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          { name: 'shell__run', parametersJsonSchema: { type: 'object', properties: {} } },
          {
            name: 'apply_patch',
            description: 'Patch files\n\nThe `input` parameter is free-form text.',
            parametersJsonSchema: { type: 'object', properties: { input: { type: 'string', description: 'The raw input for this tool.' } }, required: ['input'], additionalProperties: false },
          },
        ],
      },
    ]);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['shell__run'] } });
    expect((body.contents as Json[])[1]).toEqual({
      role: 'model',
      parts: [{ functionCall: { id: 'c1', name: 'apply_patch', args: { input: '*** Begin Patch' } }, thoughtSignature: 'skip_thought_signature_validator' }],
    });
  });

  it('the JSON Schema subset: unions, refs and closed objects kept; draft-7 definitions moved; the rest dropped and listed', () => {
    const c = ctx();
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      properties: {
        mode: { const: 'fast' },
        when: { type: 'string', format: 'date-time', pattern: '^2' },
        either: { anyOf: [{ type: 'string' }, { $ref: '#/definitions/Thing' }] },
        pair: { type: 'array', prefixItems: [{ type: 'number' }], uniqueItems: true },
        not: { type: 'integer', exclusiveMinimum: 0 },
      },
      definitions: { Thing: { type: 'object', properties: { id: { type: 'string', examples: ['a'] } } } },
      allOf: [{ required: ['mode'] }],
    };
    const body = geminiCodec.encodeRequest({ ...base, tools: [{ kind: 'function', name: 'f', parameters: schema }] }, c) as { tools: { functionDeclarations: Json[] }[] };
    expect(body.tools[0]!.functionDeclarations[0]!.parametersJsonSchema).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: {
        mode: { enum: ['fast'] },
        when: { type: 'string', format: 'date-time', pattern: '^2' },
        either: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/Thing' }] },
        pair: { type: 'array', prefixItems: [{ type: 'number' }] },
        not: { type: 'integer' },
      },
      $defs: { Thing: { type: 'object', properties: { id: { type: 'string' } } } },
    });
    expect(c.warnings).toEqual(['tool schema keyword uniqueItems', 'tool schema keyword exclusiveMinimum', 'tool schema keyword examples', 'tool schema keyword allOf']);
  });

  it('a mid-conversation system message stays where it was, as user text; tool result images follow the results', () => {
    const c = ctx();
    const body = geminiCodec.encodeRequest(
      {
        ...base,
        system: [{ type: 'text', text: 'S' }],
        messages: [
          user('a'),
          { role: 'assistant', content: [{ type: 'reasoning', text: '', details: [{ type: 'reasoning.encrypted', data: 'c2ln', format: 'google-gemini-v1', index: 0, id: 't1' }] }, { type: 'tool_call', id: 't1', name: 'shot', kind: 'function', arguments: '{}' }] },
          { role: 'user', content: [{ type: 'tool_result', callId: 't1', content: [{ type: 'text', text: 'here' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } }] }] },
          { role: 'system', content: [{ type: 'text', text: 'Now be formal.' }] },
        ],
      },
      c,
    ) as Json;
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'S' }] });
    expect((body.contents as Json[]).slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { id: 't1', name: 'shot', args: {} }, thoughtSignature: 'c2ln' }] },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 't1', name: 'shot', response: { output: 'here' } } },
          { inlineData: { mimeType: 'image/png', data: 'iVBO' } },
          { text: 'Now be formal.' },
        ],
      },
    ]);
    expect(c.warnings).toEqual(['tool result media as user parts', 'mid-conversation system message as user text']);
  });
});
