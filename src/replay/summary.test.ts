import { describe, expect, it } from 'vitest';
import type { StreamEventJson } from '../log/exchange-json.js';
import { eventType, summarise } from './summary.js';

const ev = (data: unknown, event?: string): StreamEventJson => ({ t: 1, ...(event !== undefined ? { event } : {}), data });
const named = (type: string, fields: Record<string, unknown> = {}) => ev({ type, ...fields }, type);
const events = (list: StreamEventJson[]) => ({ bytes: 1, events: list });

const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
  ev({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }], ...extra });

const chatStream = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Hel' }),
  chunk({ content: 'lo' }),
  chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
  chunk({}, 'tool_calls'),
  ev({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 } }),
  ev('[DONE]'),
];

const message = { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } };
const messagesStream = [
  named('message_start', { message }),
  named('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  named('ping'),
  named('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
  named('content_block_delta', { index: 0, delta: { type: 'text_delta', text: ' there' } }),
  named('content_block_stop', { index: 0 }),
  named('message_delta', { delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 3 } }),
  named('message_stop'),
];

const response = { id: 'resp_1', object: 'response', created_at: 1, status: 'in_progress', model: 'm', output: [] };
const item = { type: 'message', id: 'msg_1', role: 'assistant', status: 'in_progress', content: [] };
const responsesStream = [
  named('response.created', { sequence_number: 0, response }),
  named('response.output_item.added', { sequence_number: 1, output_index: 0, item }),
  named('response.content_part.added', { sequence_number: 2, item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '' } }),
  named('response.output_text.delta', { sequence_number: 3, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Yo' }),
  named('response.output_text.done', { sequence_number: 4, item_id: 'msg_1', output_index: 0, content_index: 0, text: 'Yo' }),
  named('response.content_part.done', { sequence_number: 5, item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: 'Yo' } }),
  named('response.output_item.done', { sequence_number: 6, output_index: 0, item: { ...item, status: 'completed', content: [{ type: 'output_text', text: 'Yo' }] } }),
  named('response.completed', {
    sequence_number: 7,
    response: { ...response, status: 'completed', output: [{ ...item, status: 'completed', content: [{ type: 'output_text', text: 'Yo' }] }], usage: { input_tokens: 4, output_tokens: 1, total_tokens: 5 } },
  }),
];

describe('summarise a stream', () => {
  it('Chat: text, tool call arguments, stop reason, usage, event types, [DONE] as the end', () => {
    expect(summarise('chat', events(chatStream), 200)).toEqual({
      text: 'Hello',
      toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }],
      stopReason: 'tool_calls',
      usage: { inputTokens: 7, outputTokens: 2 },
      eventTypes: ['chunk', 'chunk', 'chunk', 'chunk', 'chunk', 'chunk', 'chunk', '[DONE]'],
      ended: true,
    });
  });

  it('Messages: text and stop reason; message_stop is the end', () => {
    expect(summarise('messages', events(messagesStream), 200)).toMatchObject({
      text: 'Hi there',
      toolCalls: [],
      stopReason: 'max_tokens',
      usage: { inputTokens: 10, outputTokens: 3 },
      ended: true,
    });
  });

  it('Responses: response.completed is the end', () => {
    const s = summarise('responses', events(responsesStream), 200);
    expect(s).toMatchObject({ text: 'Yo', stopReason: 'end', ended: true, usage: { inputTokens: 4, outputTokens: 1 } });
    expect(s.eventTypes?.[0]).toBe('response.created');
  });

  it.each([
    ['Chat without [DONE]', 'chat', chatStream.slice(0, 3)],
    ['Messages without message_stop', 'messages', messagesStream.slice(0, 5)],
    ['Responses without response.completed', 'responses', responsesStream.slice(0, 4)],
  ] as const)('%s has not ended', (_name, protocol, list) => {
    expect(summarise(protocol, events([...list]), 200).ended).toBe(false);
  });

  it.each([
    ['Messages error event', 'messages', [...messagesStream.slice(0, 4), ev({ type: 'error', error: { type: 'overloaded_error', message: 'busy' } }, 'error')], 'overloaded_error: busy'],
    ['Chat error chunk', 'chat', [...chatStream.slice(0, 2), ev({ error: { message: 'broke', type: 'api_error' } })], 'api_error: broke'],
  ] as const)('reports the %s', (_name, protocol, list, error) => {
    const s = summarise(protocol, events([...list]), 200);
    expect(s.error).toBe(error);
    expect(s.ended).toBe(false);
  });
});

describe('summarise a JSON body', () => {
  it.each([
    [
      'a Chat completion',
      'chat',
      { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'length' }] },
      { text: 'Hi', toolCalls: [], stopReason: 'max_tokens' },
    ],
    [
      'a Message with a tool call',
      'messages',
      { ...message, content: [{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', id: 't1', name: 'lookup', input: { q: 1 } }], stop_reason: 'tool_use' },
      { text: 'Let me look.', toolCalls: [{ name: 'lookup', arguments: '{"q":1}' }], stopReason: 'tool_calls' },
    ],
    [
      'a Response',
      'responses',
      { ...response, status: 'completed', output: [{ ...item, status: 'completed', content: [{ type: 'output_text', text: 'Yo' }] }], usage: { input_tokens: 4, output_tokens: 1 } },
      { text: 'Yo', toolCalls: [], stopReason: 'end' },
    ],
  ] as const)('%s', (_name, protocol, json, expected) => {
    expect(summarise(protocol, { bytes: 1, json }, 200)).toMatchObject(expected);
  });

  it.each([
    ['an OpenAI error body', 'chat', { error: { message: 'Invalid API key.', type: 'authentication_error' } }, 401, 'authentication_error: Invalid API key.'],
    ['an Anthropic error body', 'messages', { type: 'error', error: { type: 'not_found_error', message: 'no model' } }, 404, 'not_found_error: no model'],
  ] as const)('reads %s as the error', (_name, protocol, json, status, error) => {
    expect(summarise(protocol, { bytes: 1, json }, status)).toEqual({ text: '', toolCalls: [], error });
  });

  it('shows a text error body as it is', () => {
    expect(summarise('chat', { bytes: 3, text: 'bad' }, 502)).toEqual({ text: '', toolCalls: [], error: 'bad' });
  });
});

describe('eventType', () => {
  it.each([
    [ev({ type: 'x' }, 'message_start'), 'message_start'],
    [ev({ type: 'response.created' }), 'response.created'],
    [ev({ choices: [] }), 'chunk'],
    [ev({ error: { message: 'm' } }), 'error'],
    [ev('[DONE]'), '[DONE]'],
  ])('%j → %s', (e, type) => {
    expect(eventType(e)).toBe(type);
  });
});
