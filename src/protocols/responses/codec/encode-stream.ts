/**
 * IR stream → Responses SSE for the caller. Every event is named and numbered
 * from 0; `response.created` comes first (the SDK's stream helper requires it),
 * every item is announced with `output_item.added` before its deltas and ended
 * with `output_item.done` (Codex builds its items only from those), and the
 * closing `response.completed` / `response.incomplete` lists every item again,
 * under the same response id. Consecutive text and refusal blocks share one
 * message item, one content part each.
 * @see README.md, "Forwarding" (an error after the stream started is the protocol's error event)
 * @see src/protocols/responses/codec/sdk.test.ts (the official SDK reads what this writes)
 * @see test/fixtures/clients/ (Codex and the openai SDK, recorded)
 */
import type { Json } from '../../shallow.js';
import { eventFrame } from '../../../sse/format.js';
import type * as Ir from '../../../translate/ir.js';
import type { StreamEncoder } from '../../../translate/types.js';
import { compactionItem, isCompactionRequest } from './compaction.js';
import { messageItem, outputTextPart, reasoningId, refusalPart, toolCallItem, toolItemId } from './encode-output.js';
import { envelope, responseId, type EnvelopeFields } from './envelope.js';
import { createReasoningWriter, type ReasoningWriter } from './encode-stream-reasoning.js';
import { encodeUsage, statusOf } from './status.js';

type Open =
  | { kind: 'text' | 'refusal'; contentIndex: number; text: string }
  | { kind: 'reasoning'; writer: ReasoningWriter }
  | { kind: 'tool'; index: number; itemId: string; block: Extract<Ir.BlockStart, { type: 'tool_call' }>; args: string };

/**
 * The Response error `code` for an IR error type. Codex retries `server_error` and rate limits
 * (waiting as told) and gives up at once on `invalid_prompt`.
 */
function errorCode(errorType: string | undefined): string {
  if (errorType?.includes('rate_limit')) return 'rate_limit_exceeded';
  if (errorType?.includes('invalid_request')) return 'invalid_prompt';
  return 'server_error';
}

export function encodeStream(ctx: Ir.TranslateContext, callerBody: Json): StreamEncoder {
  /** A compaction's summary, held: its one item is made when the text is whole (compaction.ts). */
  const summary: string[] | undefined = isCompactionRequest(callerBody) ? [] : undefined;
  let seq = 0;
  let id = '';
  let created = 0;
  let started = false;
  let ended = false;
  /** Output items by `output_index`, replaced by their final form when done. */
  const items: Json[] = [];
  let message: { index: number; id: string; content: Json[] } | undefined;
  let open: Open | undefined;

  const frame = (type: string, fields: Json): string =>
    eventFrame(type, { type, sequence_number: seq++, ...fields });
  const snapshot = (fields: Omit<EnvelopeFields, 'id' | 'created'>): Json =>
    envelope(ctx, callerBody, { id, created, ...fields });

  const start = (ev?: Extract<Ir.StreamEvent, { type: 'start' }>): string => {
    if (started) return '';
    started = true;
    id = responseId(ev?.id ?? '', ctx);
    created = ev?.created ?? Math.floor(ctx.now() / 1000);
    const response = snapshot({ status: 'in_progress', output: [], usage: null });
    return frame('response.created', { response }) + frame('response.in_progress', { response });
  };

  const closeMessage = (): string => {
    if (!message) return '';
    const item = messageItem(message.id, message.content, 'completed');
    items[message.index] = item;
    const out = frame('response.output_item.done', { output_index: message.index, item });
    message = undefined;
    return out;
  };

  const blockStart = (block: Ir.BlockStart): string => {
    if (block.type === 'text' || block.type === 'refusal') {
      let out = '';
      if (!message) {
        message = { index: items.length, id: ctx.newId('msg_'), content: [] };
        const item = messageItem(message.id, [], 'in_progress');
        items.push(item);
        out += frame('response.output_item.added', { output_index: message.index, item });
      }
      const contentIndex = message.content.length;
      open = { kind: block.type, contentIndex, text: '' };
      const part = block.type === 'text' ? outputTextPart('') : refusalPart('');
      return out + frame('response.content_part.added', { item_id: message.id, output_index: message.index, content_index: contentIndex, part });
    }
    const out = closeMessage();
    const index = items.length;
    if (block.type === 'reasoning') {
      const writer = createReasoningWriter({ index, id: reasoningId(block, ctx), block, frame, ctx });
      items.push(writer.added());
      open = { kind: 'reasoning', writer };
      return out + frame('response.output_item.added', { output_index: index, item: writer.added() });
    }
    const itemId = toolItemId(block, ctx);
    const item = toolCallItem(itemId, { ...block, arguments: '' }, 'in_progress');
    items.push(item);
    open = { kind: 'tool', index, itemId, block, args: '' };
    return out + frame('response.output_item.added', { output_index: index, item });
  };

  const blockDelta = (delta: Ir.BlockDelta): string => {
    if (!open) return '';
    if (open.kind === 'reasoning') return open.writer.delta(delta);
    if (open.kind === 'tool') {
      if (delta.type !== 'arguments') return '';
      open.args += delta.text;
      const type = open.block.kind === 'custom' ? 'response.custom_tool_call_input.delta' : 'response.function_call_arguments.delta';
      return frame(type, { item_id: open.itemId, output_index: open.index, delta: delta.text });
    }
    if (!message || (delta.type !== 'text' && delta.type !== 'refusal')) return '';
    open.text += delta.text;
    const at = { item_id: message.id, output_index: message.index, content_index: open.contentIndex };
    return delta.type === 'text'
      ? frame('response.output_text.delta', { ...at, delta: delta.text, logprobs: [] })
      : frame('response.refusal.delta', { ...at, delta: delta.text });
  };

  const blockStop = (): string => {
    const o = open;
    open = undefined;
    if (!o) return '';
    if (o.kind === 'reasoning') {
      const { frames, item } = o.writer.stop();
      items[o.writer.index] = item;
      return frames;
    }
    if (o.kind === 'tool') {
      const item = toolCallItem(o.itemId, { ...o.block, arguments: o.args }, 'completed');
      items[o.index] = item;
      const done = o.block.kind === 'custom'
        ? frame('response.custom_tool_call_input.done', { item_id: o.itemId, output_index: o.index, input: o.args })
        : frame('response.function_call_arguments.done', { item_id: o.itemId, output_index: o.index, arguments: o.args, name: o.block.name });
      return done + frame('response.output_item.done', { output_index: o.index, item });
    }
    if (!message) return '';
    const at = { item_id: message.id, output_index: message.index, content_index: o.contentIndex };
    const part = o.kind === 'text' ? outputTextPart(o.text) : refusalPart(o.text);
    message.content.push(part);
    const done = o.kind === 'text'
      ? frame('response.output_text.done', { ...at, text: o.text, logprobs: [] })
      : frame('response.refusal.done', { ...at, refusal: o.text });
    return done + frame('response.content_part.done', { ...at, part });
  };

  const finishCompaction = (): string => {
    const item = compactionItem(summary?.join('') ?? '', ctx);
    items.push(item);
    const at = { output_index: items.length - 1 };
    return frame('response.output_item.added', { ...at, item }) + frame('response.output_item.done', { ...at, item });
  };

  const finish = (ev: Extract<Ir.StreamEvent, { type: 'finish' }>): string => {
    const out = summary ? finishCompaction() : blockStop() + closeMessage();
    const { status, incomplete_details } = statusOf(ev.stopReason);
    const response = snapshot({ status, incompleteDetails: incomplete_details, output: items, usage: encodeUsage(ev.usage) });
    return out + frame(status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
  };

  /** The in-band error both error shapes' parsers understand, then the failed response. */
  const fail = (ev: Extract<Ir.StreamEvent, { type: 'error' }>): string => {
    const code = errorCode(ev.errorType);
    const error = { type: ev.errorType ?? 'server_error', code, message: ev.message, param: null };
    const response = snapshot({ status: 'failed', output: items, usage: null, error: { code, message: ev.message } });
    return frame('error', { code, message: ev.message, param: null, error }) + frame('response.failed', { response });
  };

  return {
    push(ev) {
      if (ended) return '';
      if (ev.type === 'start') return start(ev);
      const head = start();
      if (summary && ev.type !== 'finish' && ev.type !== 'error') {
        if (ev.type === 'block_delta' && ev.delta.type === 'text') summary.push(ev.delta.text);
        return head;
      }
      switch (ev.type) {
        case 'block_start':
          return head + blockStop() + blockStart(ev.block);
        case 'block_delta':
          return head + blockDelta(ev.delta);
        case 'block_stop':
          return head + blockStop();
        case 'finish':
          ended = true;
          return head + finish(ev);
        case 'error':
          ended = true;
          return head + fail(ev);
      }
    },
    end: () => '',
  };
}
