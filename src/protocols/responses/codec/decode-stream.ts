/**
 * An OpenAI Responses SSE stream → IR stream events. Events are keyed by the
 * `type` in their data (the `event:` line is optional, Codex-style servers may
 * omit it); unknown events, `keepalive` and hosted-tool progress events are
 * ignored. `response.completed` / `response.incomplete` finish the stream, also
 * finishing any item the stream only listed there; `response.failed` and
 * `error` events (flat or nested) become an IR error.
 * @see README.md, "Forwarding" (an error after the stream started is the protocol's error event)
 */
import { isObject, type Json } from '../../shallow.js';
import type { SseEvent } from '../../../sse/parse.js';
import type * as Ir from '../../../translate/ir.js';
import type { StreamDecoder } from '../../../translate/types.js';
import { failureMessage } from './decode-response.js';
import { num, objects, str } from './read.js';
import { decodeUsage, stopReasonOf } from './status.js';
import { createStreamBlocks } from './stream-blocks.js';

function parse(data: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function decodeStream(ctx: Ir.TranslateContext): StreamDecoder {
  let out: Ir.StreamEvent[] = [];
  const blocks = createStreamBlocks(ctx, (event) => out.push(event));
  let started = false;
  let over = false;

  const start = (response: unknown) => {
    if (started) return;
    started = true;
    const r = isObject(response) ? response : {};
    out.push({
      type: 'start',
      id: str(r.id) ?? ctx.newId('resp_'),
      model: str(r.model) ?? ctx.upstreamModel,
      created: num(r.created_at) ?? Math.floor(ctx.now() / 1000),
    });
  };

  const finish = (response: Json) => {
    const items = objects(response.output);
    for (let i = 0; i < items.length; i++) blocks.itemDone(i, items[i]!);
    blocks.closeOpen();
    out.push({ type: 'finish', stopReason: stopReasonOf(response, blocks.calledTools), usage: decodeUsage(response.usage) });
    over = true;
  };

  const fail = (message: string, errorType: string | undefined) => {
    out.push({ type: 'error', message, ...(errorType !== undefined ? { errorType } : {}) });
    over = true;
  };

  function handle(type: string, d: Json): void {
    const index = num(d.output_index) ?? 0;
    const contentIndex = num(d.content_index) ?? 0;
    const text = (key: string) => str(d[key]) ?? '';
    if (type === 'error') {
      const nested = isObject(d.error) ? d.error : {};
      fail(str(d.message) ?? failureMessage(nested, 'The upstream stream failed.'), str(d.code) ?? str(nested.type) ?? str(nested.code));
      return;
    }
    if (type === 'response.failed') {
      const response = isObject(d.response) ? d.response : {};
      const error = isObject(response.error) ? response.error : {};
      fail(failureMessage(error, 'The upstream response failed.'), str(error.code));
      return;
    }
    if (!type.startsWith('response.')) return;
    start(d.response);
    switch (type) {
      case 'response.output_item.added':
        if (isObject(d.item)) blocks.itemAdded(index, d.item);
        return;
      case 'response.output_item.done':
        if (isObject(d.item)) blocks.itemDone(index, d.item);
        return;
      case 'response.content_part.added':
        if (isObject(d.part) && (d.part.type === 'output_text' || d.part.type === 'refusal')) {
          blocks.partText(index, contentIndex, d.part.type === 'output_text' ? 'text' : 'refusal', '', false);
        }
        return;
      case 'response.content_part.done':
        if (isObject(d.part)) blocks.partDone(index, contentIndex, d.part);
        return;
      case 'response.output_text.delta':
        blocks.partText(index, contentIndex, 'text', text('delta'), false);
        return;
      case 'response.output_text.done':
        blocks.partText(index, contentIndex, 'text', text('text'), true);
        return;
      case 'response.refusal.delta':
        blocks.partText(index, contentIndex, 'refusal', text('delta'), false);
        return;
      case 'response.refusal.done':
        blocks.partText(index, contentIndex, 'refusal', text('refusal'), true);
        return;
      case 'response.reasoning_summary_part.added':
        blocks.summaryText(index, num(d.summary_index) ?? 0, '', false);
        return;
      case 'response.reasoning_summary_text.delta':
        blocks.summaryText(index, num(d.summary_index) ?? 0, text('delta'), false);
        return;
      case 'response.reasoning_summary_text.done':
        blocks.summaryText(index, num(d.summary_index) ?? 0, text('text'), true);
        return;
      case 'response.reasoning_summary_part.done':
        blocks.summaryText(index, num(d.summary_index) ?? 0, isObject(d.part) ? (str(d.part.text) ?? '') : '', true);
        return;
      case 'response.reasoning_text.delta':
        blocks.reasoningText(index, text('delta'), false);
        return;
      case 'response.reasoning_text.done':
        blocks.reasoningText(index, text('text'), true);
        return;
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        blocks.toolInput(index, text('delta'), false);
        return;
      case 'response.function_call_arguments.done':
        blocks.toolInput(index, text('arguments'), true);
        return;
      case 'response.custom_tool_call_input.done':
        blocks.toolInput(index, text('input'), true);
        return;
      case 'response.completed':
      case 'response.incomplete':
        finish(isObject(d.response) ? d.response : {});
        return;
      default:
        // response.created / in_progress / queued start the stream above; other events carry nothing for the IR.
        return;
    }
  }

  return {
    push(event: SseEvent) {
      out = [];
      if (over) return out;
      const data = parse(event.data);
      if (!data) return out;
      const type = str(data.type) ?? event.event;
      if (type !== undefined) handle(type, data);
      return out;
    },
    end: () => [],
  };
}
