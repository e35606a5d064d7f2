/**
 * IR conversation → Anthropic `system` blocks and `messages` turns.
 * Anthropic needs strictly alternating user/assistant turns, tool_result blocks
 * first in the user turn right after the assistant's tool_use blocks, no empty
 * text blocks, and thinking blocks replayed with their signatures.
 * @see README.md, "Translation" › "What maps to what"
 * @see README.md, "Translation" › "What is lossy, and how it is handled"
 */
import type { Json } from '../../shallow.js';
import type * as Ir from '../../../translate/ir.js';
import { upstreamToolName } from '../../../translate/common/tool-names.js';
import { argumentsToObject } from '../../../translate/common/tool-args.js';
import { encodeFile, encodeImage } from './encode-media.js';
import { warn, writeCache } from './read.js';
import { append } from '../../../translate/common/append.js';

export interface Turn {
  role: 'user' | 'assistant';
  content: Json[];
}

/** Empty text blocks are rejected by Anthropic (`text content blocks must be non-empty`). */
const textBlock = (part: Ir.TextPart): Json | undefined =>
  part.text === '' ? undefined : { type: 'text', text: part.text, ...writeCache(part) };

export const encodeSystemParts = (parts: readonly Ir.TextPart[]): Json[] =>
  parts.map(textBlock).filter((b): b is Json => b !== undefined);

/** Anthropic tool_use ids must match `^[a-zA-Z0-9_-]+$`; ids from other servers may not. Results map the same way. */
export const safeToolId = (id: string): string => id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'toolu_';

function encodeMedia(part: Ir.TextPart | Ir.ImagePart | Ir.FilePart, ctx: Ir.TranslateContext): Json | undefined {
  if (part.type === 'text') return textBlock(part);
  if (part.type === 'image') return encodeImage(part, ctx);
  return encodeFile(part, ctx);
}

function encodeToolResult(part: Ir.ToolResultPart, ctx: Ir.TranslateContext): Json {
  const blocks = part.content.map((p) => encodeMedia(p, ctx)).filter((b): b is Json => b !== undefined);
  const only = blocks[0];
  // One plain text block reads best as the string form clients themselves send.
  const content = blocks.length === 1 && only?.type === 'text' && only.cache_control === undefined ? only.text : blocks;
  return {
    type: 'tool_result',
    tool_use_id: safeToolId(part.callId),
    ...(blocks.length > 0 ? { content } : {}),
    ...(part.isError !== undefined ? { is_error: part.isError } : {}),
    ...writeCache(part),
  };
}

function encodeUser(parts: readonly Ir.UserPart[], ctx: Ir.TranslateContext): Json[] {
  return parts
    .map((p) => (p.type === 'tool_result' ? encodeToolResult(p, ctx) : encodeMedia(p, ctx)))
    .filter((b): b is Json => b !== undefined);
}

export function encodeToolCall(part: Ir.ToolCallPart, ctx: Ir.TranslateContext): Json {
  const name = upstreamToolName(ctx, { name: part.name, kind: part.kind, ...(part.namespace !== undefined ? { namespace: part.namespace } : {}) });
  // A custom tool's free-form input travels as the one `input` parameter of its function stand-in.
  const input = part.kind === 'custom' ? { input: part.arguments } : argumentsToObject(part.arguments, ctx);
  return { type: 'tool_use', id: safeToolId(part.id), name, input, ...writeCache(part) };
}

function encodeAssistantPart(part: Ir.AssistantPart, ctx: Ir.TranslateContext): Json | undefined {
  switch (part.type) {
    case 'text':
      return textBlock(part);
    case 'refusal':
      return textBlock({ type: 'text', text: part.text });
    case 'tool_call':
      return encodeToolCall(part, ctx);
    case 'reasoning':
      if (part.redacted !== undefined) return { type: 'redacted_thinking', data: part.redacted };
      if (part.signature) return { type: 'thinking', thinking: part.text, signature: part.signature };
      // Reasoning from another provider has no signature; Anthropic rejects unsigned thinking blocks.
      warn(ctx, 'reasoning history');
      return undefined;
  }
}

/** Anthropic merges or rejects consecutive same-role turns; merging here keeps the request valid everywhere. */
function pushTurn(turns: Turn[], turn: Turn): void {
  if (turn.content.length === 0) return;
  const last = turns.at(-1);
  if (last && last.role === turn.role) append(last.content, turn.content);
  else turns.push(turn);
}

/** Tool results must open their user turn (stable: results keep their order, other blocks theirs). */
const resultsFirst = (turn: Turn): Turn =>
  turn.role === 'user'
    ? { role: 'user', content: [...turn.content.filter((b) => b.type === 'tool_result'), ...turn.content.filter((b) => b.type !== 'tool_result')] }
    : turn;

export interface EncodedConversation {
  readonly system: Json[];
  readonly messages: Turn[];
}

/**
 * System parts first, then the system messages before the first turn. A system message after
 * the first turn stays where it is, as user text: joined to the user turn before it, or a user
 * turn of its own (Anthropic's mid-conversation `role: 'system'` works only on newer models).
 * Hoisting it into `system` would change the start of the prompt whenever one arrives, and with
 * it every cached prefix; in place, it depends only on what comes before it.
 */
export function encodeConversation(request: Ir.Request, ctx: Ir.TranslateContext): EncodedConversation {
  const system = encodeSystemParts(request.system);
  const turns: Turn[] = [];
  let seenTurn = false;
  for (const m of request.messages) {
    if (m.role === 'system') {
      if (!seenTurn) {
        append(system, encodeSystemParts(m.content));
        continue;
      }
      warn(ctx, 'mid-conversation system message as user text');
      pushTurn(turns, { role: 'user', content: encodeSystemParts(m.content) });
      continue;
    }
    seenTurn = true;
    if (m.role === 'user') pushTurn(turns, { role: 'user', content: encodeUser(m.content, ctx) });
    else pushTurn(turns, { role: 'assistant', content: m.content.map((p) => encodeAssistantPart(p, ctx)).filter((b): b is Json => b !== undefined) });
  }
  return { system, messages: turns.map(resultsFirst) };
}
