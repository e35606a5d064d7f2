/**
 * The scenarios every translation pair runs (test/conformance/translation.test.ts),
 * written once in IR terms: what the caller asks and what the upstream model
 * answers. Each pair's protocols render them on the wire.
 */
import type * as Ir from '#src/translate/ir.js';

export interface Scenario {
  readonly name: string;
  readonly request: Ir.Request;
  /** What the upstream model answers (in the caller's tool names). */
  readonly response: Ir.Response;
}

const PNG_1PX =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const base: Ir.Request = { model: 'm', system: [], messages: [], tools: [], stream: false, maxOutputTokens: 256 };
const user = (text: string): Ir.Message => ({ role: 'user', content: [{ type: 'text', text }] });
const usage = (inputTokens: number, outputTokens: number): Ir.Usage => ({ inputTokens, outputTokens });
const answer = (content: Ir.AssistantPart[], stopReason: Ir.StopReason = 'end', u = usage(20, 5)): Ir.Response => ({
  id: 'up-1',
  model: 'upstream-model',
  created: 1_700_000_000,
  content,
  stopReason,
  usage: u,
});
const text = (t: string): Ir.TextPart => ({ type: 'text', text: t });

const weather: Ir.Tool = {
  kind: 'function',
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const time: Ir.Tool = {
  kind: 'function',
  name: 'get_time',
  description: 'Local time in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const call = (id: string, name: string, args: object): Ir.ToolCallPart => ({
  type: 'tool_call',
  id,
  name,
  arguments: JSON.stringify(args),
  kind: 'function',
});

export const scenarios: readonly Scenario[] = [
  { name: 'plain text', request: { ...base, messages: [user('hi')] }, response: answer([text('Hello! How can I help?')]) },
  {
    name: 'system prompt',
    request: { ...base, system: [text('You are terse.')], messages: [user('hi')] },
    response: answer([text('Hi.')]),
  },
  {
    name: 'multi-turn',
    request: {
      ...base,
      messages: [user('My name is Ada.'), { role: 'assistant', content: [text('Nice to meet you, Ada.')] }, user('What is my name?')],
    },
    response: answer([text('Your name is Ada.')]),
  },
  {
    name: 'image',
    request: {
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these images?' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG_1PX } },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.png' } },
          ],
        },
      ],
    },
    response: answer([text('A white pixel and a cat.')]),
  },
  {
    name: 'single tool call',
    request: { ...base, tools: [weather], messages: [user('Weather in Paris?')] },
    response: answer([text('Let me check.'), call('call_1', 'get_weather', { city: 'Paris' })], 'tool_calls'),
  },
  {
    name: 'parallel tool calls',
    request: { ...base, tools: [weather, time], messages: [user('Weather and time in Paris?')] },
    response: answer([call('call_1', 'get_weather', { city: 'Paris' }), call('call_2', 'get_time', { city: 'Paris' })], 'tool_calls'),
  },
  {
    name: 'tool result round trip',
    request: {
      ...base,
      tools: [weather],
      messages: [
        user('Weather in Paris?'),
        { role: 'assistant', content: [call('call_1', 'get_weather', { city: 'Paris' })] },
        { role: 'user', content: [{ type: 'tool_result', callId: 'call_1', content: [text('18°C and sunny')] }] },
      ],
    },
    response: answer([text('It is 18°C and sunny in Paris.')]),
  },
  {
    name: 'tool error',
    request: {
      ...base,
      tools: [weather],
      messages: [
        user('Weather in Atlantis?'),
        { role: 'assistant', content: [call('call_9', 'get_weather', { city: 'Atlantis' })] },
        { role: 'user', content: [{ type: 'tool_result', callId: 'call_9', content: [text('city not found')], isError: true }] },
      ],
    },
    response: answer([text('I could not find Atlantis.')]),
  },
  {
    name: 'JSON output',
    request: {
      ...base,
      messages: [user('Give me a JSON object with a=1')],
      responseFormat: {
        type: 'json_schema',
        name: 'thing',
        schema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'], additionalProperties: false },
      },
    },
    response: answer([text('{"a":1}')]),
  },
  {
    name: 'max-tokens stop',
    request: { ...base, maxOutputTokens: 5, messages: [user('Write a long story.')] },
    response: answer([text('Once upon a')], 'max_tokens', usage(12, 5)),
  },
  {
    name: 'reasoning',
    request: { ...base, maxOutputTokens: 8000, reasoning: { effort: 'high' }, messages: [user('What is 17*23?')] },
    response: answer([{ type: 'reasoning', text: '17*23 = 391.', signature: 'sig-abc' }, text('391')], 'end', usage(30, 50)),
  },
  {
    name: 'cached input',
    request: { ...base, system: [text('A long, cached system prompt.')], messages: [user('hi')] },
    response: answer([text('hello')], 'end', { inputTokens: 1000, outputTokens: 2, cacheReadTokens: 900 }),
  },
];
