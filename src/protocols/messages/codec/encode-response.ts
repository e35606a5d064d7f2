/**
 * IR response → Anthropic message JSON. Only signed thinking can be shown to a
 * Messages client (it will replay it); reasoning from another provider is
 * dropped, never turned into visible text. Refusals become text with
 * `stop_reason: 'refusal'`.
 * @see README.md, "Translation" › "What maps to what"
 * @see src/protocols/messages/codec/sdk.test.ts (the official SDK reads what this writes)
 */
import { callerResponseId } from '../../../translate/common/ids.js';
import type { Json } from '../../shallow.js';
import type * as Ir from '../../../translate/ir.js';
import type { SealedReasoning } from '../../../translate/common/reasoning-seal.js';
import { argumentsToObject } from '../../../translate/common/tool-args.js';
import { warn } from './read.js';
import { encodeStopReason } from './stop-reasons.js';
import { encodeUsage } from './usage.js';
import { messageHead, type ContentBlock, type Message } from './wire.js';

/** The caller sees the IR's id (the upstream's), or a fresh `msg_` one when there is none. */
export const messageId = (response: { readonly id: string }, ctx: Ir.TranslateContext): string =>
  callerResponseId('msg_', response.id, ctx);

/** Reasoning as a Messages caller sees it: the upstream's summaries (OpenAI shows only those), then its text. */
export const shownReasoning = (part: Pick<Ir.ReasoningPart, 'text' | 'summary'>): string => [...(part.summary ?? []), part.text].filter((t) => t !== '').join('\n\n');

/**
 * A reasoning part as a block: Anthropic's own thinking as it came; another provider's in a
 * thinking block signed with the gateway's seal, which brings back on the next turn what that
 * provider needs (common/reasoning-seal.ts). Undefined (with a warning) when it cannot be carried.
 */
export function reasoningBlock(part: Omit<Ir.ReasoningPart, 'type'>, ctx: Ir.TranslateContext): ContentBlock | undefined {
  if (part.redacted !== undefined) return { type: 'redacted_thinking', data: part.redacted };
  if (part.signature) return { type: 'thinking', thinking: part.text, signature: part.signature };
  const shown = shownReasoning(part);
  if (ctx.seal && (shown !== '' || part.encrypted !== undefined || part.details !== undefined)) {
    return { type: 'thinking', thinking: shown, signature: ctx.seal.seal(shown, sealedOf(part)) };
  }
  warn(ctx, 'reasoning not carried');
  return undefined;
}

/** What a seal must bring back of a reasoning part besides the text shown. */
export function sealedOf(part: Omit<Ir.ReasoningPart, 'type' | 'text'>): SealedReasoning {
  return {
    ...(part.encrypted !== undefined ? { encrypted: part.encrypted } : {}),
    ...(part.id !== undefined ? { id: part.id } : {}),
    ...(part.details !== undefined ? { details: part.details } : {}),
    ...(part.summary?.length ? { summary: true } : {}),
  };
}

export function contentBlock(part: Ir.AssistantPart, ctx: Ir.TranslateContext): ContentBlock | undefined {
  switch (part.type) {
    case 'text':
    case 'refusal':
      // Clients replay content verbatim, and Anthropic rejects empty text blocks in requests.
      return part.text === '' ? undefined : { type: 'text', text: part.text };
    case 'reasoning':
      return reasoningBlock(part, ctx);
    case 'tool_call':
      // A Messages caller only declares function tools, so the input is always the arguments object.
      return { type: 'tool_use', id: part.id, name: part.name, input: argumentsToObject(part.arguments, ctx), caller: { type: 'direct' } };
  }
}

export function buildMessage(response: Ir.Response, ctx: Ir.TranslateContext): Message {
  const content = response.content.map((p) => contentBlock(p, ctx)).filter((b): b is ContentBlock => b !== undefined);
  const stopReason = encodeStopReason({
    stopReason: response.stopReason,
    hasToolCalls: response.content.some((p) => p.type === 'tool_call'),
    hasRefusal: response.content.some((p) => p.type === 'refusal'),
  });
  return {
    ...messageHead(messageId(response, ctx), ctx.requestedModel),
    content,
    stop_reason: stopReason,
    stop_sequence: stopReason === 'stop_sequence' ? (response.stopSequence ?? null) : null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: encodeUsage(response.usage),
  };
}

export const encodeResponse = (response: Ir.Response, ctx: Ir.TranslateContext): Json => ({ ...buildMessage(response, ctx) });
