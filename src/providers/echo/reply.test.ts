import { describe, expect, it } from 'vitest';
import type { Protocol } from '../../protocols/types.js';
import { argumentsFromSchema } from './tool-args.js';
import { echoReply, mentions, NO_TEXT, type EchoReply } from './reply.js';

type Body = Record<string, unknown>;

const weatherSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] }, days: { type: 'integer' } },
  required: ['city', 'unit'],
};
const timeSchema = { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] };

/** The same conversation in each protocol's own words. */
interface Scenario {
  readonly text?: string;
  /** Tools offered, by name, each with a schema. */
  readonly tools?: readonly { readonly name: string; readonly schema: unknown }[];
  readonly choice?: 'auto' | 'none' | 'required' | { readonly name: string };
  /** End the conversation with a tool call and this result. */
  readonly toolResult?: string;
}

const build: Record<Protocol, (s: Scenario) => Body> = {
  chat: (s) => ({
    model: 'm',
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: s.text ?? '' },
      ...(s.toolResult === undefined
        ? []
        : [
            { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'x', arguments: '{}' } }] },
            { role: 'tool', tool_call_id: 'call_1', content: s.toolResult },
          ]),
    ],
    ...(s.tools === undefined
      ? {}
      : { tools: s.tools.map((t) => ({ type: 'function', function: { name: t.name, parameters: t.schema } })) }),
    ...(s.choice === undefined
      ? {}
      : { tool_choice: typeof s.choice === 'string' ? s.choice : { type: 'function', function: { name: s.choice.name } } }),
  }),
  responses: (s) => ({
    model: 'm',
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'be brief' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: s.text ?? '' }] },
      ...(s.toolResult === undefined
        ? []
        : [
            { type: 'function_call', call_id: 'call_1', name: 'x', arguments: '{}' },
            { type: 'function_call_output', call_id: 'call_1', output: s.toolResult },
          ]),
    ],
    ...(s.tools === undefined
      ? {}
      : { tools: s.tools.map((t) => ({ type: 'function', name: t.name, parameters: t.schema, strict: false })) }),
    ...(s.choice === undefined
      ? {}
      : { tool_choice: typeof s.choice === 'string' ? s.choice : { type: 'function', name: s.choice.name } }),
  }),
  messages: (s) => ({
    model: 'm',
    max_tokens: 100,
    messages: [
      { role: 'user', content: [{ type: 'text', text: s.text ?? '' }] },
      ...(s.toolResult === undefined
        ? []
        : [
            { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'x', input: {} }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: s.toolResult }] },
          ]),
    ],
    ...(s.tools === undefined ? {} : { tools: s.tools.map((t) => ({ name: t.name, input_schema: t.schema })) }),
    ...(s.choice === undefined
      ? {}
      : {
          tool_choice:
            s.choice === 'required'
              ? { type: 'any' }
              : typeof s.choice === 'string'
                ? { type: s.choice }
                : { type: 'tool', name: s.choice.name },
        }),
  }),
  gemini: (s) => ({
    contents: [
      { role: 'user', parts: [{ text: s.text ?? '' }] },
      ...(s.toolResult === undefined
        ? []
        : [
            { role: 'model', parts: [{ functionCall: { id: 'call_1', name: 'x', args: {} } }] },
            { role: 'user', parts: [{ functionResponse: { id: 'call_1', name: 'x', response: { output: s.toolResult } } }] },
          ]),
    ],
    systemInstruction: { parts: [{ text: 'be brief' }] },
    ...(s.tools === undefined ? {} : { tools: [{ functionDeclarations: s.tools.map((t) => ({ name: t.name, parametersJsonSchema: t.schema })) }] }),
    ...(s.choice === undefined
      ? {}
      : {
          toolConfig: {
            functionCallingConfig:
              typeof s.choice === 'string' ? { mode: s.choice === 'required' ? 'ANY' : s.choice.toUpperCase() } : { mode: 'ANY', allowedFunctionNames: [s.choice.name] },
          },
        }),
  }),
};

const tools = [
  { name: 'get_weather', schema: weatherSchema },
  { name: 'get_time', schema: timeSchema },
];

const text = (t: string): EchoReply => ({ kind: 'text', text: t });
const call = (name: string, input: Record<string, unknown>): EchoReply => ({
  kind: 'tool',
  name,
  input,
  arguments: JSON.stringify(input),
});

const cases: readonly { readonly name: string; readonly scenario: Scenario; readonly expected: EchoReply }[] = [
  { name: 'echoes the user text', scenario: { text: 'hello  world ' }, expected: text('hello  world ') },
  { name: 'no text', scenario: { text: '' }, expected: text(NO_TEXT) },
  { name: 'tools offered but not asked for', scenario: { text: 'what is up', tools }, expected: text('what is up') },
  {
    name: 'required → first tool',
    scenario: { text: 'hi', tools, choice: 'required' },
    expected: call('get_weather', { city: 'hi', unit: 'celsius' }),
  },
  {
    name: 'required → the mentioned tool first',
    scenario: { text: 'use get_time', tools, choice: 'required' },
    expected: call('get_time', { zone: 'use get_time' }),
  },
  {
    name: 'named tool is forced',
    scenario: { text: 'use get_weather', tools, choice: { name: 'get_time' } },
    expected: call('get_time', { zone: 'use get_weather' }),
  },
  {
    name: 'a tool named in the text is called',
    scenario: { text: 'please get_time, then get_weather.', tools },
    expected: call('get_weather', { city: 'please get_time, then get_weather.', unit: 'celsius' }),
  },
  { name: 'names match whole words only', scenario: { text: 'my_get_time get_timer', tools }, expected: text('my_get_time get_timer') },
  { name: 'names match case-sensitively', scenario: { text: 'Get_Time', tools }, expected: text('Get_Time') },
  { name: 'tool_choice none wins over a mention', scenario: { text: 'get_time', tools, choice: 'none' }, expected: text('get_time') },
  { name: 'auto with a mention', scenario: { text: 'get_time', tools, choice: 'auto' }, expected: call('get_time', { zone: 'get_time' }) },
  {
    name: 'a tool result ends the loop, even when a tool is required',
    scenario: { text: 'get_time', tools, choice: 'required', toolResult: '12:00' },
    expected: text('Tool result: 12:00'),
  },
  {
    name: 'tool results are cut to 2000 characters',
    scenario: { text: 'x', toolResult: 'ab'.repeat(1500) },
    expected: text(`Tool result: ${'ab'.repeat(1000)}`),
  },
];

describe.each(['chat', 'responses', 'messages', 'gemini'] as const)('echoReply (%s)', (protocol) => {
  it.each(cases)('$name', ({ scenario, expected }) => {
    expect(echoReply(protocol, build[protocol](scenario))).toEqual(expected);
  });
});

describe('echoReply: reading each protocol', () => {
  it.each<[string, Protocol, Body, EchoReply]>([
    ['chat: last text part of the last user message', 'chat', {
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'image_url', image_url: { url: 'x' } }, { type: 'text', text: 'b' }] },
      ],
    }, text('b')],
    ['chat: last user message without text', 'chat', {
      messages: [{ role: 'user', content: 'first' }, { role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }],
    }, text(NO_TEXT)],
    ['chat: tool content parts are joined by newlines', 'chat', {
      messages: [{ role: 'user', content: 'q' }, { role: 'tool', tool_call_id: 'c', content: [{ type: 'text', text: 'l1' }, { type: 'text', text: 'l2' }] }],
    }, text('Tool result: l1\nl2')],
    ['chat: a tool message followed by a system message still ends the loop', 'chat', {
      messages: [{ role: 'user', content: 'q' }, { role: 'tool', tool_call_id: 'c', content: 'r' }, { role: 'system', content: 's' }],
    }, text('Tool result: r')],
    ['messages: string content', 'messages', { messages: [{ role: 'user', content: 'plain' }] }, text('plain')],
    ['messages: a trailing system message is skipped (Claude Code)', 'messages', {
      messages: [
        { role: 'user', content: [{ type: 'text', text: '<system-reminder>' }, { type: 'text', text: 'run it' }] },
        { role: 'system', content: [{ type: 'text', text: '# Environment' }] },
      ],
    }, text('run it')],
    ['messages: tool_result text blocks, last result wins', 'messages', {
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'a', content: 'first' },
            { type: 'tool_result', tool_use_id: 'b', content: [{ type: 'text', text: 'x' }, { type: 'image', source: {} }, { type: 'text', text: 'y' }] },
            { type: 'text', text: 'reminder' },
          ],
        },
      ],
    }, text('Tool result: x\ny')],
    ['messages: a tool_result without content', 'messages', {
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a' }] }],
    }, text('Tool result: ')],
    ['responses: string input', 'responses', { input: 'just this' }, text('just this')],
    ['responses: easy message with string content', 'responses', { input: [{ role: 'user', content: 'easy' }] }, text('easy')],
    ['responses: empty input list', 'responses', { input: [] }, text(NO_TEXT)],
    ['responses: custom tool output parts, then reasoning and developer items', 'responses', {
      input: [
        { role: 'user', content: 'q' },
        { type: 'custom_tool_call', call_id: 'c', name: 'exec', input: 'js' },
        { type: 'custom_tool_call_output', call_id: 'c', output: [{ type: 'input_text', text: 'done' }, { type: 'input_text', text: '{}' }] },
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'message', role: 'developer', content: 'dev' },
      ],
    }, text('Tool result: done\n{}')],
    ['responses: an assistant message after the output means no tool result', 'responses', {
      input: [
        { role: 'user', content: 'q' },
        { type: 'function_call_output', call_id: 'c', output: 'r' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }] },
        { role: 'user', content: [{ type: 'input_text', text: 'next' }] },
      ],
    }, text('next')],
  ])('%s', (_name, protocol, body, expected) => {
    expect(echoReply(protocol, { model: 'm', ...body })).toEqual(expected);
  });
});

describe('echoReply: which tools count', () => {
  it('chat ignores custom tools', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'grep it' }], tools: [{ type: 'custom', custom: { name: 'grep' } }] };
    expect(echoReply('chat', body)).toEqual(text('grep it'));
  });

  it('messages ignores server tools, but takes typed custom tools', () => {
    const body = {
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'web_search or note' }],
      tools: [
        { type: 'web_search_20250305', name: 'web_search', max_uses: 8 },
        { type: 'custom', name: 'note', input_schema: { type: 'object', properties: {} } },
      ],
    };
    expect(echoReply('messages', body)).toEqual(call('note', {}));
    expect(echoReply('messages', { ...body, tools: body.tools.slice(0, 1), tool_choice: { type: 'any' } })).toEqual(
      text('web_search or note'),
    );
  });

  it('responses calls a function nested in a namespace, with its namespace', () => {
    const body = {
      model: 'm',
      input: 'please spawn_agent',
      tools: [
        { type: 'web_search', external_web_access: false },
        { type: 'custom', name: 'spawn', format: { type: 'text' } },
        {
          type: 'namespace',
          name: 'multi_agent_v1',
          tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] } }],
        },
      ],
    };
    expect(echoReply('responses', body)).toEqual({
      kind: 'tool',
      name: 'spawn_agent',
      namespace: 'multi_agent_v1',
      input: { message: 'please spawn_agent' },
      arguments: '{"message":"please spawn_agent"}',
    });
  });

  it('responses takes tools from a Codex additional_tools item', () => {
    const body = {
      model: 'm',
      input: [
        { type: 'additional_tools', role: 'developer', tools: [{ type: 'namespace', name: 'clock', tools: [{ type: 'function', name: 'sleep', parameters: {} }] }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'sleep now' }] },
      ],
    };
    expect(echoReply('responses', body)).toEqual({ kind: 'tool', name: 'sleep', namespace: 'clock', input: {}, arguments: '{}' });
  });

  it('a tool without parameters is called with {}', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'ping' }], tools: [{ type: 'function', function: { name: 'ping' } }] };
    expect(echoReply('chat', body)).toEqual(call('ping', {}));
  });

  it('a forced name that is not offered falls back to the first tool', () => {
    const body = build.chat({ text: 'hi', tools, choice: { name: 'nope' } });
    expect(echoReply('chat', body)).toMatchObject({ kind: 'tool', name: 'get_weather' });
  });
});

describe('argumentsFromSchema', () => {
  it.each<[string, unknown, Record<string, unknown>]>([
    ['not an object schema', undefined, {}],
    ['no required properties', { type: 'object', properties: { a: { type: 'string' } } }, {}],
    [
      'each type, required only',
      {
        type: 'object',
        properties: {
          s: { type: 'string' },
          i: { type: 'integer' },
          n: { type: 'number' },
          b: { type: 'boolean' },
          a: { type: 'array', items: { type: 'string' } },
          u: { description: 'no type' },
          x: { type: 'who-knows' },
          optional: { type: 'string' },
        },
        required: ['s', 'i', 'n', 'b', 'a', 'u', 'x', 'missing'],
      },
      { s: 'TEXT', i: 0, n: 0, b: false, a: [], u: null, x: null, missing: null },
    ],
    [
      'enum first value, minimum, const, nullable type list',
      {
        type: 'object',
        properties: {
          mode: { type: 'string', enum: ['fast', 'slow'] },
          level: { type: 'integer', enum: [3, 4] },
          n: { type: 'number', minimum: 2.5 },
          i: { type: 'integer', minimum: 1.5 },
          kind: { type: 'string', const: 'fixed' },
          maybe: { type: ['null', 'string'] },
        },
        required: ['mode', 'level', 'n', 'i', 'kind', 'maybe'],
      },
      { mode: 'fast', level: 3, n: 2.5, i: 2, kind: 'fixed', maybe: 'TEXT' },
    ],
    [
      'nested objects recurse over their required properties',
      {
        type: 'object',
        properties: {
          outer: {
            type: 'object',
            properties: { inner: { type: 'object', properties: { leaf: { type: 'number', minimum: 7 }, skip: { type: 'string' } }, required: ['leaf'] } },
            required: ['inner'],
          },
        },
        required: ['outer'],
      },
      { outer: { inner: { leaf: 7 } } },
    ],
  ])('%s', (_name, schema, expected) => {
    expect(argumentsFromSchema(schema, 'TEXT')).toEqual(expected);
  });
});

describe('mentions', () => {
  it.each<[string, string, boolean]>([
    ['run Bash now', 'Bash', true],
    ['Bash', 'Bash', true],
    ['(Bash)', 'Bash', true],
    ['run bash', 'Bash', false],
    ['Bashful', 'Bash', false],
    ['Bashé', 'Bash', false],
    ['«Bash»', 'Bash', true],
    ['my_Bash', 'Bash', false],
    ['Bash2 and Bash', 'Bash', true],
    ['anything', '', false],
  ])('%j contains %j: %s', (haystack, name, expected) => {
    expect(mentions(haystack, name)).toBe(expected);
  });
});

describe('values that cannot be made strings', () => {
  // `{"toString": {}}` throws when converted to a string; the fuzz suite found one reaching a 500.
  const hostile = { toString: {} };
  it.each([
    ['responses', { model: 'm', input: [{ role: 'user', content: 'hi' }, { type: hostile, call_id: 'c', output: 'x' }] }],
    ['responses', { model: 'm', input: [{ type: 'message', role: hostile, content: [{ type: hostile, text: 'hi' }] }] }],
    ['chat', { model: 'm', messages: [{ role: hostile, content: [{ type: hostile, text: 'hi' }] }] }],
    ['messages', { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: [{ type: hostile, text: 'hi' }] }] }],
  ] as const)('%s: answers without throwing', (protocol, body) => {
    expect(() => echoReply(protocol, body)).not.toThrow();
  });
});
