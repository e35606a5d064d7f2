/**
 * Echo replies as OpenAI Responses: the `response` object and its named-event stream
 * (`response.created` … `response.completed`, with `sequence_number` 0, 1, 2, …).
 * @see https://platform.openai.com/docs/api-reference/responses/object, https://platform.openai.com/docs/api-reference/responses-streaming
 * @see src/providers/echo/sdk.test.ts (the official SDKs read what this writes)
 */
import { splitJson, splitWords } from './deltas.js';
import { isRecord } from './conversation.js';
import { estimateOutputTokens, type EchoMeta } from './meta.js';
import type { EchoReply } from './reply.js';
import { namedEvent, type SseEvent } from './sse.js';

type ItemStatus = 'in_progress' | 'completed';

export interface OutputText {
  readonly type: 'output_text';
  readonly text: string;
  readonly annotations: readonly never[];
  readonly logprobs: readonly never[];
}

export interface OutputMessage {
  readonly id: string;
  readonly type: 'message';
  readonly status: ItemStatus;
  readonly role: 'assistant';
  readonly content: readonly OutputText[];
}

export interface FunctionCallItem {
  readonly id: string;
  readonly type: 'function_call';
  readonly status: ItemStatus;
  readonly call_id: string;
  readonly name: string;
  readonly namespace?: string;
  readonly arguments: string;
}

export type OutputItem = OutputMessage | FunctionCallItem;

export interface ResponseUsage {
  readonly input_tokens: number;
  readonly input_tokens_details: { readonly cached_tokens: number; readonly cache_write_tokens: number };
  readonly output_tokens: number;
  readonly output_tokens_details: { readonly reasoning_tokens: number };
  readonly total_tokens: number;
}

/** The Response object; request settings are echoed back as the API does (unknown: passed through as sent). */
export interface ResponseObject {
  readonly id: string;
  readonly object: 'response';
  readonly created_at: number;
  readonly status: 'in_progress' | 'completed';
  readonly completed_at: number | null;
  readonly background: boolean;
  readonly error: null;
  readonly incomplete_details: null;
  readonly instructions: unknown;
  readonly max_output_tokens: unknown;
  readonly metadata: unknown;
  readonly model: string;
  readonly output: readonly OutputItem[];
  readonly parallel_tool_calls: unknown;
  readonly previous_response_id: unknown;
  readonly prompt_cache_key: unknown;
  readonly reasoning: unknown;
  readonly service_tier: 'default';
  readonly store: unknown;
  readonly temperature: unknown;
  readonly text: unknown;
  readonly tool_choice: unknown;
  readonly tools: unknown;
  readonly top_p: unknown;
  readonly truncation: unknown;
  readonly usage: ResponseUsage | null;
}

function usageOf(reply: EchoReply, meta: EchoMeta): ResponseUsage {
  const output = estimateOutputTokens(reply);
  return {
    input_tokens: meta.inputTokens,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: meta.inputTokens + output,
  };
}

function responseObject(body: unknown, meta: EchoMeta, final: { output: readonly OutputItem[]; usage: ResponseUsage } | undefined): ResponseObject {
  const request = isRecord(body) ? body : {};
  const given = (name: string, fallback: unknown): unknown => request[name] ?? fallback;
  return {
    id: meta.ids.response,
    object: 'response',
    created_at: meta.created,
    status: final === undefined ? 'in_progress' : 'completed',
    completed_at: final === undefined ? null : meta.created,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: given('instructions', null),
    max_output_tokens: given('max_output_tokens', null),
    metadata: given('metadata', {}),
    model: meta.model,
    output: final?.output ?? [],
    parallel_tool_calls: given('parallel_tool_calls', true),
    previous_response_id: given('previous_response_id', null),
    prompt_cache_key: given('prompt_cache_key', null),
    reasoning: given('reasoning', { effort: null, summary: null }),
    service_tier: 'default',
    store: given('store', true),
    temperature: given('temperature', 1),
    text: given('text', { format: { type: 'text' }, verbosity: 'medium' }),
    tool_choice: given('tool_choice', 'auto'),
    tools: given('tools', []),
    top_p: given('top_p', 1),
    truncation: given('truncation', 'disabled'),
    usage: final?.usage ?? null,
  };
}

const outputText = (text: string): OutputText => ({ type: 'output_text', text, annotations: [], logprobs: [] });

function outputItem(reply: EchoReply, meta: EchoMeta, status: ItemStatus): OutputItem {
  if (reply.kind === 'text') {
    const content = status === 'completed' ? [outputText(reply.text)] : [];
    return { id: meta.ids.message, type: 'message', status, role: 'assistant', content };
  }
  return {
    id: meta.ids.callItem,
    type: 'function_call',
    status,
    call_id: meta.ids.call,
    name: reply.name,
    ...(reply.namespace === undefined ? {} : { namespace: reply.namespace }),
    arguments: status === 'completed' ? reply.arguments : '',
  };
}

export const responsesJson = (reply: EchoReply, body: unknown, meta: EchoMeta): ResponseObject =>
  responseObject(body, meta, { output: [outputItem(reply, meta, 'completed')], usage: usageOf(reply, meta) });

/** A stream event: its `type`, its `sequence_number`, and the fields of that event type. */
export interface ResponsesEvent {
  readonly type: string;
  readonly sequence_number: number;
  readonly [field: string]: unknown;
}

export function responsesEvents(reply: EchoReply, body: unknown, meta: EchoMeta): ResponsesEvent[] {
  const events: ResponsesEvent[] = [];
  const emit = (type: string, fields: Record<string, unknown>): void => {
    events.push({ type, sequence_number: events.length, ...fields });
  };
  const at = { output_index: 0 };
  emit('response.created', { response: responseObject(body, meta, undefined) });
  emit('response.in_progress', { response: responseObject(body, meta, undefined) });
  emit('response.output_item.added', { ...at, item: outputItem(reply, meta, 'in_progress') });
  if (reply.kind === 'text') {
    const part = { item_id: meta.ids.message, ...at, content_index: 0 };
    emit('response.content_part.added', { ...part, part: outputText('') });
    for (const delta of splitWords(reply.text)) emit('response.output_text.delta', { ...part, delta, logprobs: [] });
    emit('response.output_text.done', { ...part, text: reply.text, logprobs: [] });
    emit('response.content_part.done', { ...part, part: outputText(reply.text) });
  } else {
    // Deltas name the item (`fc_…`) in `item_id`, as OpenAI's stream does; the `call_id` sits on the item.
    const item = { item_id: meta.ids.callItem, ...at };
    for (const delta of splitJson(reply.arguments)) emit('response.function_call_arguments.delta', { ...item, delta });
    emit('response.function_call_arguments.done', { ...item, name: reply.name, arguments: reply.arguments });
  }
  const done = outputItem(reply, meta, 'completed');
  emit('response.output_item.done', { ...at, item: done });
  emit('response.completed', { response: responseObject(body, meta, { output: [done], usage: usageOf(reply, meta) }) });
  return events;
}

export const responsesSse = (reply: EchoReply, body: unknown, meta: EchoMeta): SseEvent[] =>
  responsesEvents(reply, body, meta).map(namedEvent);
