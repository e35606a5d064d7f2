/**
 * Gemini model parts → IR assistant parts, for answers (a Gemini upstream) and for the model turns of
 * a Gemini caller's history alike. A part's `thoughtSignature` becomes a reasoning part of its own
 * just before it (signatures.ts), a text part's after text excepted for a Messages caller
 * (`dropsTextSignature`, as in streams); the gateway's seals, which only a Gemini caller sends, open
 * into the reasoning parts they were made from.
 */
import type * as Ir from '../../../translate/ir.js';
import { type Json, str, warn } from './read.js';
import { dropsTextSignature, openSeal, partSignature, signatureEntry, TEXT_SIGNATURE_DROPPED, unpackSeals } from './signatures.js';

/** Makes the IR tool call for a `functionCall` part (ids and names are the caller's business). */
export type ToolCallMaker = (call: Json) => Ir.ToolCallPart;

/** The seals on a part, when its signature is the gateway's. */
function sealsOf(part: Json): string[] | undefined {
  const signature = partSignature(part);
  return signature !== undefined ? unpackSeals(signature) : undefined;
}

/**
 * Thought parts without a signature right before a sealed part: the gateway showed them to the
 * caller, and the seal holds their text, so they are not taken twice.
 */
function coveredThoughts(parts: readonly Json[]): Set<number> {
  const covered = new Set<number>();
  for (let i = 0; i < parts.length; i++) {
    if (parts[i]!.thought === true || sealsOf(parts[i]!) === undefined) continue;
    for (let j = i - 1; j >= 0 && parts[j]!.thought === true && partSignature(parts[j]!) === undefined; j--) covered.add(j);
  }
  return covered;
}

export function decodeModelParts(parts: readonly Json[], ctx: Ir.TranslateContext, makeCall: ToolCallMaker): Ir.AssistantPart[] {
  const out: Ir.AssistantPart[] = [];
  const covered = coveredThoughts(parts);
  let entries = 0;
  let afterText = false;
  parts.forEach((part, i) => {
    const signature = partSignature(part);
    const seals = signature !== undefined ? unpackSeals(signature) : undefined;
    if (seals !== undefined) {
      for (const token of seals) {
        const opened = openSeal(token, ctx);
        if (opened) out.push(opened);
      }
    }
    if (part.thought === true) {
      // A sealed thought part (reasoning with no part after it) or one whose text a seal holds.
      if (seals !== undefined || covered.has(i)) return;
      out.push({
        type: 'reasoning',
        text: str(part.text) ?? '',
        ...(signature !== undefined ? { details: [signatureEntry(signature, entries++, 'thought')] } : {}),
      });
      return;
    }
    const call = typeof part.functionCall === 'object' && part.functionCall !== null ? makeCall(part.functionCall as Json) : undefined;
    const isText = !call && typeof part.text === 'string';
    if (signature !== undefined && seals === undefined) {
      if (isText && dropsTextSignature(ctx, afterText)) warn(ctx, TEXT_SIGNATURE_DROPPED);
      else out.push({ type: 'reasoning', text: '', details: [signatureEntry(signature, entries++, call ? { callId: call.id } : undefined)] });
    }
    if (call) out.push(call);
    else if (typeof part.text === 'string') {
      if (part.text !== '') out.push({ type: 'text', text: part.text });
      afterText ||= part.text !== '';
    } else if (part.inlineData !== undefined || part.fileData !== undefined) warn(ctx, 'media in model turn');
    else if (part.executableCode !== undefined || part.codeExecutionResult !== undefined) warn(ctx, 'code execution parts');
    else if (signature === undefined) warn(ctx, `${Object.keys(part).join('/') || 'empty'} part`);
  });
  return out;
}
