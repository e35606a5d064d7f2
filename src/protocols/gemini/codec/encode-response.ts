/**
 * IR response → a Gemini answer for a Gemini caller: one candidate, its parts (encode-parts.ts),
 * finish reason and usage; the model the caller asked for as `modelVersion`.
 * @see node_modules/@google/genai/dist/genai.d.ts (`GenerateContentResponse`)
 */
import { callerResponseId } from '../../../translate/common/ids.js';
import { argumentsToObject } from '../../../translate/common/tool-args.js';
import type * as Ir from '../../../translate/ir.js';
import { encodeModelParts } from './encode-parts.js';
import { encodeFinishReason } from './finish-reasons.js';
import type { Json } from './read.js';
import { encodeUsage } from './usage.js';
import type { GenerateContentResponse, Part } from './wire.js';

/** The caller's `responseId`: the upstream's id, or a fresh one. */
export const responseIdFor = (id: string, ctx: Ir.TranslateContext): string => callerResponseId('', id, ctx);

/** A tool call as a Gemini caller sees it: its own tool's name and the arguments object. */
export const callForCaller = (p: Ir.ToolCallPart, ctx: Ir.TranslateContext): NonNullable<Part['functionCall']> => ({
  id: p.id,
  name: p.name,
  args: argumentsToObject(p.arguments, ctx),
});

export function buildAnswer(response: Ir.Response, ctx: Ir.TranslateContext): GenerateContentResponse {
  const parts = encodeModelParts(response.content, 'answer', ctx, (p) => callForCaller(p, ctx));
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: encodeFinishReason(response.stopReason), index: 0 }],
    usageMetadata: encodeUsage(response.usage),
    modelVersion: ctx.requestedModel,
    responseId: responseIdFor(response.id, ctx),
  };
}

export const encodeResponse = (response: Ir.Response, ctx: Ir.TranslateContext): Json => ({ ...buildAnswer(response, ctx) });
