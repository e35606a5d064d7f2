/**
 * Gemini `finishReason` ⇄ IR stop reasons. Gemini says STOP after function calls and after a stop
 * sequence alike; a safety block of any kind is a content filter. Reasons with no IR twin (a
 * malformed function call, too many tool calls) end the answer and are listed.
 */
import type * as Ir from '../../../translate/ir.js';
import { warn } from './read.js';
import type { FinishReason } from './wire.js';

const FILTERED = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/** Reasons that end the answer abnormally but are no filter: listed, read as an end. */
const LISTED = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS', 'LANGUAGE', 'OTHER', 'NO_IMAGE', 'IMAGE_OTHER']);

export function decodeFinishReason(reason: unknown, hasToolCalls: boolean, ctx: Ir.TranslateContext): Ir.StopReason {
  if (typeof reason !== 'string') return hasToolCalls ? 'tool_calls' : 'end';
  if (reason === 'MAX_TOKENS' || reason === 'CONTINUATION') return 'max_tokens';
  if (FILTERED.has(reason)) return 'content_filter';
  if (LISTED.has(reason)) warn(ctx, `finish reason ${reason}`);
  return hasToolCalls ? 'tool_calls' : 'end';
}

const TO_GEMINI = {
  end: 'STOP',
  tool_calls: 'STOP',
  stop_sequence: 'STOP',
  // A refusal is the model's own answer, not a block: Gemini would say STOP with the text.
  refusal: 'STOP',
  pause: 'STOP',
  max_tokens: 'MAX_TOKENS',
  context_window: 'MAX_TOKENS',
  content_filter: 'SAFETY',
} as const satisfies Record<Ir.StopReason, FinishReason>;

export const encodeFinishReason = (reason: Ir.StopReason): FinishReason => TO_GEMINI[reason];
