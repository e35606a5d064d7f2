/**
 * A Chat `chat.completion` from the upstream → IR. Only the first choice is
 * read (the gateway never asks for more). Reasoning from servers that return it
 * (`reasoning_content`: DeepSeek, vLLM; `reasoning`: OpenRouter, Ollama) comes
 * first, as reasoning precedes the answer.
 */
import { GatewayError } from '../../../errors.js';
import type { AssistantPart, Response, TranslateContext } from '../../../translate/ir.js';
import { stopReasonFromChat } from './finish-reasons.js';
import { arr, isObject, num, obj, objects, str, warn, type Json } from './read.js';
import { readDetails } from './reasoning-details.js';
import { callerToolCall } from './tool-calls.js';
import { chatUsageObject, usageFromChat } from './usage.js';

/** `content` is a string, but a few servers answer with text parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return objects(content)
    .map((p) => str(p.text) ?? '')
    .join('');
}

function messageParts(message: Json, ctx: TranslateContext): AssistantPart[] {
  const parts: AssistantPart[] = [];
  const reasoning = str(message.reasoning_content) ?? str(message.reasoning);
  // OpenRouter's `reasoning_details` hold what the model needs back (encrypted data, signatures), beside the text.
  const details = readDetails(message.reasoning_details);
  if (reasoning || details) parts.push({ type: 'reasoning', text: reasoning ?? '', ...(details ? { details } : {}) });
  const text = contentText(message.content);
  if (text !== '') parts.push({ type: 'text', text });
  const refusal = str(message.refusal);
  if (refusal) parts.push({ type: 'refusal', text: refusal });
  for (const call of objects(message.tool_calls)) {
    const id = str(call.id) ?? ctx.newId('call_');
    if (call.type === 'custom') {
      const custom = obj(call.custom);
      parts.push({ type: 'tool_call', id, name: str(custom.name) ?? '', arguments: str(custom.input) ?? '', kind: 'custom' });
    } else {
      const fn = obj(call.function);
      parts.push(callerToolCall(ctx, id, str(fn.name) ?? '', str(fn.arguments) ?? ''));
    }
  }
  if (isObject(message.function_call)) {
    const fn = message.function_call;
    parts.push(callerToolCall(ctx, ctx.newId('call_'), str(fn.name) ?? '', str(fn.arguments) ?? ''));
  }
  return parts;
}

export function decodeResponse(body: Json, ctx: TranslateContext): Response {
  const choices = arr(body.choices);
  const choice = choices[0];
  if (!isObject(choice)) {
    const error = obj(body.error);
    const type = str(error.type);
    throw new GatewayError('upstream_error', str(error.message) ?? 'The upstream answered without a choice.', {
      ...(type !== undefined ? { upstreamType: type } : {}),
    });
  }
  if (choices.length > 1) warn(ctx, 'n > 1');
  const content = messageParts(obj(choice.message), ctx);
  const hasToolCalls = content.some((p) => p.type === 'tool_call');
  return {
    id: str(body.id) ?? ctx.newId('chatcmpl-'),
    model: str(body.model) ?? ctx.upstreamModel,
    created: num(body.created) ?? Math.floor(ctx.now() / 1000),
    content,
    stopReason: stopReasonFromChat(choice.finish_reason, hasToolCalls),
    usage: usageFromChat(chatUsageObject(body)),
  };
}
