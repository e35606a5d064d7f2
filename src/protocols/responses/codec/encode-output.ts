/**
 * IR assistant parts → Responses output items, shared by the complete response
 * and the stream (whose `output_item.done` items and final `response.completed`
 * must equal what the complete response would have said). Reasoning is shown
 * to a Responses caller as its summary: the IR summary, or the reasoning text
 * as one summary entry (Codex displays summaries, not reasoning text). Claude's
 * signature rides in `encrypted_content` (see `reasoning-carrier.ts`).
 */
import type { Json } from '../../shallow.js';
import type * as Ir from '../../../translate/ir.js';
import { carrierFor } from './reasoning-carrier.js';

export type ItemStatus = 'in_progress' | 'completed';

export const outputTextPart = (text: string): Json => ({ type: 'output_text', text, annotations: [] });
export const refusalPart = (refusal: string): Json => ({ type: 'refusal', refusal });

export const messageItem = (id: string, content: Json[], status: ItemStatus): Json => ({
  id,
  type: 'message',
  role: 'assistant',
  status,
  content,
});

/** A reasoning item from what it shows: summary entries, reasoning text (when not already the summary), the carrier. */
export function reasoningItemOf(id: string, summary: readonly string[], text: string | undefined, encrypted: string | undefined, status: ItemStatus): Json {
  return {
    id,
    type: 'reasoning',
    summary: summary.map((t) => ({ type: 'summary_text', text: t })),
    ...(text ? { content: [{ type: 'reasoning_text', text }] } : {}),
    ...(encrypted !== undefined ? { encrypted_content: encrypted } : {}),
    status,
  };
}

export function reasoningItem(id: string, part: Omit<Ir.ReasoningPart, 'type' | 'id'>, status: ItemStatus, ctx: Ir.TranslateContext): Json {
  const summary = part.summary ?? [];
  return summary.length > 0
    ? reasoningItemOf(id, summary, part.text, carrierFor(part, ctx), status)
    : reasoningItemOf(id, part.text ? [part.text] : [], undefined, carrierFor(part, ctx), status);
}

/** A tool call item; `input`/`arguments` is the text so far (empty when the item is only added). */
export function toolCallItem(id: string, part: Omit<Ir.ToolCallPart, 'type'>, status: ItemStatus): Json {
  const namespace = part.namespace !== undefined ? { namespace: part.namespace } : {};
  return part.kind === 'custom'
    ? { id, type: 'custom_tool_call', call_id: part.id, name: part.name, input: part.arguments, status, ...namespace }
    : { id, type: 'function_call', call_id: part.id, name: part.name, arguments: part.arguments, status, ...namespace };
}

export const reasoningId = (part: { readonly id?: string }, ctx: Ir.TranslateContext): string => part.id ?? ctx.newId('rs_');
export const toolItemId = (part: { readonly itemId?: string; readonly kind: Ir.ToolKind }, ctx: Ir.TranslateContext): string =>
  part.itemId ?? ctx.newId(part.kind === 'custom' ? 'ctc_' : 'fc_');

/** All parts → output items: each run of text and refusal parts is one message item. */
export function encodeOutput(content: readonly Ir.AssistantPart[], ctx: Ir.TranslateContext): Json[] {
  const items: Json[] = [];
  let message: Json[] | undefined;
  for (const part of content) {
    if (part.type === 'text' || part.type === 'refusal') {
      if (!message) {
        message = [];
        items.push(messageItem(ctx.newId('msg_'), message, 'completed'));
      }
      message.push(part.type === 'text' ? outputTextPart(part.text) : refusalPart(part.text));
      continue;
    }
    message = undefined;
    items.push(part.type === 'reasoning' ? reasoningItem(reasoningId(part, ctx), part, 'completed', ctx) : toolCallItem(toolItemId(part, ctx), part, 'completed'));
  }
  return items;
}
