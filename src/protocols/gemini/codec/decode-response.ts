/**
 * A Gemini answer (`GenerateContentResponse`) → IR response: the first candidate's parts, its
 * finish reason and the usage. Tool names map back to the caller's (namespace, kind).
 * @see node_modules/@google/genai/dist/genai.d.ts (`GenerateContentResponse`, `Candidate`)
 */
import { argumentsToCustomInput } from '../../../translate/common/tool-args.js';
import { callerTool } from '../../../translate/common/tool-names.js';
import type * as Ir from '../../../translate/ir.js';
import { decodeModelParts } from './decode-parts.js';
import { decodeFinishReason } from './finish-reasons.js';
import { isObject, type Json, objects, str, warn } from './read.js';
import { decodeUsage } from './usage.js';

/** The IR tool call for a `functionCall` Gemini answered with; `n` numbers the answer's calls for ids Gemini did not give. */
export function callFromGemini(call: Json, n: number, ctx: Ir.TranslateContext): Ir.ToolCallPart {
  const tool = callerTool(ctx, str(call.name) ?? '');
  const json = JSON.stringify(isObject(call.args) ? call.args : {});
  return {
    type: 'tool_call',
    // Gemini 3 gives ids; older models do not, and the gateway makes one the result can name.
    id: str(call.id) ?? ctx.newId(`call_${n}_`),
    name: tool.name,
    kind: tool.kind,
    ...(tool.namespace !== undefined ? { namespace: tool.namespace } : {}),
    arguments: tool.kind === 'custom' ? argumentsToCustomInput(json) : json,
  };
}

/** The candidate the IR follows: Gemini's first (the gateway never asks for more). */
export function firstCandidate(body: Json, ctx: Ir.TranslateContext): Json | undefined {
  const candidates = objects(body.candidates);
  if (candidates.length > 1) warn(ctx, 'candidates after the first');
  return candidates[0];
}

/** A prompt Gemini blocked has no candidate, only `promptFeedback.blockReason`. */
export const promptBlocked = (body: Json): boolean => isObject(body.promptFeedback) && typeof body.promptFeedback.blockReason === 'string';

export function createdOf(body: Json, ctx: Ir.TranslateContext): number {
  const time = typeof body.createTime === 'string' ? Date.parse(body.createTime) : Number.NaN;
  return Math.floor((Number.isNaN(time) ? ctx.now() : time) / 1000);
}

export function decodeResponse(body: Json, ctx: Ir.TranslateContext): Ir.Response {
  const candidate = firstCandidate(body, ctx);
  const parts = isObject(candidate?.content) ? objects(candidate.content.parts) : [];
  let n = 0;
  const content = decodeModelParts(parts, ctx, (call) => callFromGemini(call, n++, ctx));
  const stopReason =
    candidate === undefined && promptBlocked(body) ? 'content_filter' : decodeFinishReason(candidate?.finishReason, content.some((p) => p.type === 'tool_call'), ctx);
  return {
    id: str(body.responseId) ?? ctx.newId(''),
    model: str(body.modelVersion) ?? ctx.upstreamModel,
    created: createdOf(body, ctx),
    content,
    stopReason,
    usage: decodeUsage(body.usageMetadata),
  };
}
