/**
 * IR assistant parts → Gemini model parts, for a Gemini upstream's history (`request`) and for a
 * Gemini caller's answer (`answer`). Each signature goes back on the part it came from
 * (signatures.ts): one with a function call's id on that call, any other on the part right after
 * its reasoning part, a thought part's own on that thought part. Reasoning from another upstream:
 * to a Gemini caller, a thought part, and what that upstream needs back sealed on the next part;
 * to a Gemini upstream, only its text as a thought part (Gemini cannot use another model's state).
 */
import type * as Ir from '../../../translate/ir.js';
import { str, warn } from './read.js';
import { geminiEntries, isBareReasoning, needsSeal, packSeals, SEALS_BASE64, sealFor, SKIP_SIGNATURE, unplacedPart } from './signatures.js';
import { isSeal } from '../../../translate/common/reasoning-seal.js';
import type { Part } from './wire.js';

export type PartsFor = 'request' | 'answer';

/** Makes the `functionCall` of a tool call (names and arguments are the target's business). */
export type FunctionCallMaker = (call: Ir.ToolCallPart) => NonNullable<Part['functionCall']>;

/** The reasoning a part shows: its summaries, then its text. */
export const thoughtText = (p: Ir.ReasoningPart): string => [...(p.summary ?? []), p.text].filter((t) => t !== '').join('\n\n');

/**
 * Signatures waiting for the part they belong on, in order: Gemini's own (one per part) or the
 * gateway's seals (all on one part).
 */
export interface Pending {
  readonly tokens: string[];
}

/** The signature for the next part, if any waits. */
export function takePending(pending: Pending): string | undefined {
  const raw = pending.tokens.findIndex((t) => !isSeal(t));
  if (raw >= 0) return pending.tokens.splice(raw, 1)[0];
  if (pending.tokens.length === 0) return undefined;
  return packSeals(pending.tokens.splice(0));
}

/**
 * A reasoning part's contribution: the thought part to show (undefined when it has no text) and the
 * signatures it leaves for the next part. Gemini signatures with a call id are placed by the caller.
 * `whole` is the part to seal, when `p` has its text left out (a stream shows the text as it comes).
 */
export function reasoningParts(p: Ir.ReasoningPart, mode: PartsFor, pending: Pending, ctx: Ir.TranslateContext, whole = p): Part | undefined {
  const text = thoughtText(p);
  const unplaced = geminiEntries(p).filter((e) => e.id === undefined);
  const onThought = unplaced.filter((e) => e.thought === true).map((e) => str(e.data)!);
  const positional = unplaced.filter((e) => e.thought !== true).map((e) => str(e.data)!);
  // Bare text is sealed only for a caller: a Gemini upstream takes it whole as a thought part.
  if (needsSeal(whole) || (mode === 'answer' && isBareReasoning(whole))) {
    if (mode === 'answer' && ctx.seal) pending.tokens.push(sealFor(whole, ctx.seal));
    else warn(ctx, mode === 'answer' ? 'reasoning not carried' : 'reasoning history');
  }
  if (text === '') {
    pending.tokens.push(...onThought, ...positional);
    return undefined;
  }
  const [own, ...rest] = onThought;
  pending.tokens.push(...rest, ...positional);
  return { text, thought: true, ...(own !== undefined ? { thoughtSignature: own } : {}) };
}

/** Every Gemini signature of the parts that names its function call, by call id. */
export function signaturesByCall(parts: readonly Ir.AssistantPart[]): Map<string, string> {
  const calls = new Set(parts.flatMap((p) => (p.type === 'tool_call' ? [p.id] : [])));
  const byCall = new Map<string, string>();
  for (const p of parts) {
    if (p.type !== 'reasoning') continue;
    for (const e of geminiEntries(p)) if (typeof e.id === 'string' && calls.has(e.id)) byCall.set(e.id, e.data as string);
  }
  return byCall;
}

export function encodeModelParts(parts: readonly Ir.AssistantPart[], mode: PartsFor, ctx: Ir.TranslateContext, makeCall: FunctionCallMaker): Part[] {
  const out: Part[] = [];
  const pending: Pending = { tokens: [] };
  const byCall = signaturesByCall(parts);
  const push = (part: Part, signature: string | undefined) => out.push(signature !== undefined ? { ...part, thoughtSignature: signature } : part);
  for (const p of parts) {
    switch (p.type) {
      case 'reasoning': {
        // Entries naming a call of this turn go on that call; the rest are positional.
        const thought = reasoningParts(unplacedPart(p, (id) => byCall.has(id)), mode, pending, ctx);
        if (thought) out.push(thought);
        break;
      }
      case 'text':
      case 'refusal':
        if (p.text !== '') push({ text: p.text }, takePending(pending));
        break;
      case 'tool_call':
        push({ functionCall: makeCall(p) }, byCall.get(p.id) ?? takePending(pending));
        break;
    }
  }
  placeLeftover(out, pending);
  if (mode === 'request') signUnsignedCalls(out, ctx);
  return out;
}

/**
 * Signatures with no part after them. Gemini's own go on the last part without one (where Gemini puts
 * the signature of an answer without calls); the gateway's seals on an empty text part at the end
 * (as Gemini streams a late signature), so they stay after the reasoning they carry.
 */
export function placeLeftover(out: Part[], pending: Pending): void {
  for (let signature = takePending(pending); signature !== undefined; signature = takePending(pending)) {
    const last = isSeal(signature) || signature.startsWith(SEALS_BASE64) ? -1 : out.findLastIndex((part) => part.thoughtSignature === undefined && part.thought !== true);
    if (last >= 0) out[last] = { ...out[last], thoughtSignature: signature };
    else out.push({ text: '', thoughtSignature: signature });
  }
}

/**
 * A step with function calls and no signature at all was not produced by Gemini (a conversation begun
 * on another model): Google's documented value on its first call lets Gemini 3 take it.
 */
function signUnsignedCalls(out: Part[], ctx: Ir.TranslateContext): void {
  const first = out.findIndex((part) => part.functionCall !== undefined);
  if (first < 0 || out.some((part) => part.functionCall !== undefined && part.thoughtSignature !== undefined)) return;
  out[first] = { ...out[first], thoughtSignature: SKIP_SIGNATURE };
  warn(ctx, 'thought signature skipped for history from another model');
}
