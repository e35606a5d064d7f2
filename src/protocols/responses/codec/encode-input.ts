/**
 * IR messages → Responses `input` items, for an OpenAI Responses upstream.
 * Mid-conversation system messages become `developer` messages in place; an
 * assistant turn becomes its items in order (reasoning, one message per run of
 * text/refusal parts, function and custom tool calls); tool results become
 * `function_call_output` / `custom_tool_call_output` items. Reasoning can only
 * be replayed to OpenAI with its `encrypted_content`; other reasoning (Claude's
 * signed thinking, Chat reasoning text) is dropped and listed.
 * @see README.md, "Translation" › "What maps to what"
 */
import { createHash } from 'node:crypto';
import { assertNever } from '../../../assert-never.js';
import type { Json } from '../../shallow.js';
import type * as Ir from '../../../translate/ir.js';
import { upstreamToolName } from '../../../translate/common/tool-names.js';
import { toDataUrl as dataUrl } from '../../../translate/common/data-url.js';
import { warn } from './read.js';

export function encodeInputPart(part: Ir.TextPart | Ir.ImagePart | Ir.FilePart, ctx: Ir.TranslateContext): Json {
  switch (part.type) {
    case 'text':
      return { type: 'input_text', text: part.text };
    case 'image': {
      const s = part.source;
      const where = s.kind === 'file' ? { file_id: s.fileId } : { image_url: s.kind === 'url' ? s.url : dataUrl(s.mediaType, s.data) };
      // `detail` is required in the SDK types; `auto` is the documented default.
      return { type: 'input_image', detail: part.detail ?? 'auto', ...where };
    }
    case 'file': {
      if (part.text !== undefined) {
        // Responses has no plain-text document source; the text itself says the same.
        warn(ctx, 'text document as text');
        return { type: 'input_text', text: part.text };
      }
      return {
        type: 'input_file',
        ...(part.data !== undefined ? { file_data: part.mediaType ? dataUrl(part.mediaType, part.data) : part.data } : {}),
        ...(part.url !== undefined ? { file_url: part.url } : {}),
        ...(part.fileId !== undefined ? { file_id: part.fileId } : {}),
        ...(part.filename !== undefined ? { filename: part.filename } : {}),
      };
    }
  }
}

/** A tool result's content: a plain string when it is at most one text part, else a list of parts. */
function toolOutput(part: Ir.ToolResultPart, ctx: Ir.TranslateContext): string | Json[] {
  const [first, ...rest] = part.content;
  if (!first) return '';
  if (rest.length === 0 && first.type === 'text') return first.text;
  return part.content.map((p) => encodeInputPart(p, ctx));
}

function userItems(content: readonly Ir.UserPart[], kinds: ReadonlyMap<string, Ir.ToolKind>, ctx: Ir.TranslateContext): Json[] {
  const items: Json[] = [];
  let parts: Json[] = [];
  const flush = () => {
    if (parts.length > 0) items.push({ type: 'message', role: 'user', content: parts });
    parts = [];
  };
  for (const part of content) {
    if (part.type !== 'tool_result') {
      parts.push(encodeInputPart(part, ctx));
      continue;
    }
    flush();
    // Responses has no error flag on tool outputs; the output text has to say it.
    if (part.isError) warn(ctx, 'tool error flag');
    // The output item must match its call's type; a Chat or Messages caller does not say which it was.
    const kind = kinds.get(part.callId) ?? part.kind ?? 'function';
    const type = kind === 'custom' ? 'custom_tool_call_output' : 'function_call_output';
    items.push({ type, call_id: part.callId, output: toolOutput(part, ctx) });
  }
  flush();
  return items;
}

/**
 * The id of a replayed reasoning item that came without one, made from its encrypted content: a
 * fresh one on each request would change every later turn's input, and with it the prompt cache.
 */
const replayedReasoningId = (encrypted: string): string => `rs_${createHash('sha256').update(encrypted).digest('hex').slice(0, 32)}`;

function reasoningItem(part: Ir.ReasoningPart, ctx: Ir.TranslateContext): Json | undefined {
  if (part.encrypted === undefined) {
    warn(ctx, 'reasoning history');
    return undefined;
  }
  return {
    type: 'reasoning',
    id: part.id ?? replayedReasoningId(part.encrypted),
    summary: (part.summary ?? []).map((text) => ({ type: 'summary_text', text })),
    ...(part.text ? { content: [{ type: 'reasoning_text', text: part.text }] } : {}),
    encrypted_content: part.encrypted,
  };
}

function toolCallItem(part: Ir.ToolCallPart, ctx: Ir.TranslateContext): Json {
  const name = upstreamToolName(ctx, {
    name: part.name,
    kind: part.kind,
    ...(part.namespace !== undefined ? { namespace: part.namespace } : {}),
  });
  const id = part.itemId !== undefined ? { id: part.itemId } : {};
  return part.kind === 'custom'
    ? { type: 'custom_tool_call', call_id: part.id, name, input: part.arguments, ...id }
    : { type: 'function_call', call_id: part.id, name, arguments: part.arguments, ...id };
}

function assistantItems(content: readonly Ir.AssistantPart[], ctx: Ir.TranslateContext): Json[] {
  const items: Json[] = [];
  let parts: Json[] = [];
  const flush = () => {
    if (parts.length > 0) items.push({ type: 'message', role: 'assistant', content: parts });
    parts = [];
  };
  for (const part of content) {
    if (part.type === 'text') parts.push({ type: 'output_text', text: part.text, annotations: [] });
    else if (part.type === 'refusal') parts.push({ type: 'refusal', refusal: part.text });
    else {
      flush();
      const item = part.type === 'reasoning' ? reasoningItem(part, ctx) : toolCallItem(part, ctx);
      if (item) items.push(item);
    }
  }
  flush();
  return items;
}

export function encodeInput(messages: readonly Ir.Message[], ctx: Ir.TranslateContext): Json[] {
  const kinds = new Map<string, Ir.ToolKind>();
  for (const m of messages) {
    if (m.role === 'assistant') for (const p of m.content) if (p.type === 'tool_call') kinds.set(p.id, p.kind);
  }
  return messages.flatMap((m): Json[] => {
    switch (m.role) {
      case 'system':
        return [{ type: 'message', role: 'developer', content: m.content.map((p) => encodeInputPart(p, ctx)) }];
      case 'user':
        return userItems(m.content, kinds, ctx);
      case 'assistant':
        return assistantItems(m.content, ctx);
      default:
        return assertNever(m);
    }
  });
}
