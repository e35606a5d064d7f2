/**
 * Canned provider replies, written the way the real providers write them:
 * Chat data-only chunks ending in [DONE], Responses named events with sequence
 * numbers, Anthropic named events with a ping. Text is fixed so tests can compare.
 */
import type { ServerResponse } from 'node:http';
import type { Received } from './received.js';

export const CANNED_TEXT = 'Hello from upstream';
const WORDS = ['Hello', ' from', ' upstream'];

const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});

export const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

export function chatJson(model: string) {
  return {
    id: 'chatcmpl-up1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: CANNED_TEXT, refusal: null }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14, prompt_tokens_details: { cached_tokens: 4 } },
  };
}

export function chatFrames(model: string, includeUsage: boolean): string[] {
  const base = { id: 'chatcmpl-up1', object: 'chat.completion.chunk', created: 1_700_000_000, model };
  const u = includeUsage ? { usage: null } : {};
  return [
    sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }], ...u }),
    ...WORDS.map((w) => sse({ ...base, choices: [{ index: 0, delta: { content: w }, finish_reason: null }], ...u })),
    sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], ...u }),
    ...(includeUsage ? [sse({ ...base, choices: [], usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 } })] : []),
    sse('[DONE]'),
  ];
}

export function responseJson(model: string, status = 'completed') {
  return {
    id: 'resp_up1',
    object: 'response',
    created_at: 1_700_000_000,
    status,
    model,
    output: [
      {
        type: 'message',
        id: 'msg_up1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: CANNED_TEXT, annotations: [] }],
      },
    ],
    usage: {
      input_tokens: 12,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 15,
    },
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    parallel_tool_calls: true,
    temperature: null,
    top_p: null,
    tool_choice: 'auto',
    tools: [],
  };
}

export function responsesFrames(model: string): string[] {
  const final = responseJson(model);
  const created = { ...final, status: 'in_progress', output: [], usage: null };
  const item = { type: 'message', id: 'msg_up1', role: 'assistant', status: 'in_progress', content: [] };
  const part = { type: 'output_text', text: '', annotations: [] };
  const events: [string, Record<string, unknown>][] = [
    ['response.created', { response: created }],
    ['response.in_progress', { response: created }],
    ['response.output_item.added', { output_index: 0, item }],
    ['response.content_part.added', { item_id: 'msg_up1', output_index: 0, content_index: 0, part }],
    ...WORDS.map((delta): [string, Record<string, unknown>] => [
      'response.output_text.delta',
      { item_id: 'msg_up1', output_index: 0, content_index: 0, delta, logprobs: [] },
    ]),
    ['response.output_text.done', { item_id: 'msg_up1', output_index: 0, content_index: 0, text: CANNED_TEXT, logprobs: [] }],
    ['response.content_part.done', { item_id: 'msg_up1', output_index: 0, content_index: 0, part: { ...part, text: CANNED_TEXT } }],
    ['response.output_item.done', { output_index: 0, item: final.output[0] }],
    ['response.completed', { response: final }],
  ];
  return events.map(([type, data], i) => sse({ type, sequence_number: i, ...data }, type));
}

export function messageJson(model: string) {
  return {
    id: 'msg_up1',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: CANNED_TEXT, citations: null }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 5, cache_creation_input_tokens: 2 },
  };
}

export function messageFrames(model: string): string[] {
  const start = { ...messageJson(model), content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 5, cache_creation_input_tokens: 2 } };
  const ev = (type: string, data: Record<string, unknown>) => sse({ type, ...data }, type);
  return [
    ev('message_start', { message: start }),
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ev('ping', {}),
    ...WORDS.map((text) => ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })),
    ev('content_block_stop', { index: 0 }),
    ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } }),
    ev('message_stop', {}),
  ];
}

/** The default behaviour: answer by path, streaming when the body asks for it. */
export function cannedReply(req: Received, res: ServerResponse): void {
  const body = obj(req.json);
  const model = typeof body.model === 'string' ? body.model : 'unknown';
  const stream = body.stream === true;
  const path = req.url.split('?')[0];
  const json = (v: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_upstream_1', 'request-id': 'req_upstream_1' });
    res.end(JSON.stringify(v));
  };
  const frames = (f: string[]) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_upstream_1' });
    res.end(f.join(''));
  };
  switch (path) {
    case '/v1/chat/completions':
      if (stream) frames(chatFrames(model, obj(body.stream_options).include_usage === true));
      else json(chatJson(model));
      return;
    case '/v1/responses':
      if (stream) frames(responsesFrames(model));
      else json(responseJson(model));
      return;
    case '/v1/messages':
      if (stream) frames(messageFrames(model));
      else json(messageJson(model));
      return;
    case '/v1/messages/count_tokens':
      json({ input_tokens: 42 });
      return;
    default:
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${path}`, type: 'invalid_request_error' } }));
  }
}
