/**
 * Thought signatures. Gemini puts an opaque `thoughtSignature` on a part of its answer (the first
 * function call of each step, a text part, a thought part) and Gemini 3 requires it back on that
 * part in the next request's history. In the IR a signature travels as a reasoning part of its own,
 * just before the part it was on (or, on a thought part, in that reasoning part itself), holding one
 * OpenRouter-style `reasoning_details` entry of format `google-gemini-v1` (with the function call's
 * id when it was on one): so every caller protocol carries it back as it carries other reasoning
 * details (Chat in `reasoning_details`, Responses and Messages in the gateway's seal).
 *
 * The other way, reasoning from another upstream reaches a Gemini caller as a thought part, and
 * what that upstream needs back (Anthropic's signature, OpenAI's encrypted reasoning, …) rides in
 * the gateway's seal as the `thoughtSignature` of the part the reasoning preceded: Gemini clients
 * keep part signatures but not always thought parts, so the seal holds the reasoning text too.
 * It is base64, as Gemini's own signatures are (the SDKs of some languages read them as bytes).
 *
 * History Gemini did not produce has no signatures; Google documents a value that tells Gemini to
 * skip the check on such a function call, used on the first call of each such step.
 */
import type * as Ir from '../../../translate/ir.js';
import { isSeal, type SealedReasoning } from '../../../translate/common/reasoning-seal.js';
import { type Json, str, warn } from './read.js';

/** The `format` of a Gemini signature's entry in `reasoning_details` (OpenRouter's name for it). */
export const GEMINI_FORMAT = 'google-gemini-v1';

/** Google's documented value for a function call in history that Gemini did not produce. */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** Values clients put on calls they had no signature for (the Gemini CLI's, Google's older one): they mean "none". */
const DUMMIES = new Set([SKIP_SIGNATURE, 'context_engineering_is_the_way_to_go']);

export const isDummySignature = (signature: string): boolean => DUMMIES.has(signature);

/** Where a signature was: on a function call (its id), on a thought part, or (neither) on the part after its entry. */
export type SignaturePlace = { readonly callId: string } | 'thought' | undefined;

/**
 * One signature as a `reasoning_details` entry. Where it was is said in the entry, not only by
 * position: Chat callers send all of a turn's entries back in one list, before its content.
 */
export function signatureEntry(signature: string, index: number, place?: SignaturePlace): Json {
  return {
    type: 'reasoning.encrypted',
    data: signature,
    format: GEMINI_FORMAT,
    index,
    ...(typeof place === 'object' ? { id: place.callId } : {}),
    ...(place === 'thought' ? { thought: true } : {}),
  };
}

export const isGeminiEntry = (e: Json): boolean => e.format === GEMINI_FORMAT && typeof e.data === 'string';

/** A reasoning part's Gemini signatures (its `google-gemini-v1` entries). */
export const geminiEntries = (part: Ir.ReasoningPart): Json[] => (part.details ?? []).filter(isGeminiEntry);

// ---------------------------------------------------------------- seals for Gemini callers

/** The seal separator inside one `thoughtSignature` that carries several reasoning parts. */
const SEAL_JOIN = ' ';

/** Whether the part holds something the upstream needs back that only a seal can carry. */
export function needsSeal(part: Ir.ReasoningPart): boolean {
  const other = (part.details ?? []).filter((e) => !isGeminiEntry(e));
  return part.encrypted !== undefined || !!part.signature || part.redacted !== undefined || other.length > 0;
}

/**
 * Whether the part is reasoning text and nothing else (a Chat upstream's `reasoning_content`). A
 * strict upstream (DeepSeek's thinking mode) wants that text back on a tool-call turn, and a Gemini
 * client may drop thought parts: for a Gemini caller it is sealed like the rest, text inside.
 */
export const isBareReasoning = (part: Ir.ReasoningPart): boolean =>
  !needsSeal(part) && geminiEntries(part).length === 0 && (part.text !== '' || (part.summary ?? []).some((t) => t !== ''));

/** The gateway's seal over a reasoning part from another upstream, with its text inside (see the top). */
export function sealFor(part: Ir.ReasoningPart, seal: NonNullable<Ir.TranslateContext['seal']>): string {
  const other = (part.details ?? []).filter((e) => !isGeminiEntry(e));
  const carried: SealedReasoning = {
    text: part.summary?.length ? part.summary.join('\n\n') : part.text,
    ...(part.summary?.length ? { summary: true } : {}),
    ...(part.encrypted !== undefined ? { encrypted: part.encrypted } : {}),
    ...(part.id !== undefined ? { id: part.id } : {}),
    ...(part.signature ? { signature: part.signature } : {}),
    ...(part.redacted !== undefined ? { redacted: part.redacted } : {}),
    ...(other.length > 0 ? { details: other } : {}),
  };
  return seal.seal('', carried);
}

/** Seals as one `thoughtSignature`. */
export const packSeals = (seals: readonly string[]): string => Buffer.from(seals.join(SEAL_JOIN), 'utf8').toString('base64');

/** How packed seals start: `mgw1.` in base64. */
export const SEALS_BASE64 = 'bWd3MS';

/** The seals a `thoughtSignature` holds, or undefined when it is not the gateway's (Gemini's own). */
export function unpackSeals(signature: string): string[] | undefined {
  if (!signature.startsWith(SEALS_BASE64)) return undefined;
  const seals = Buffer.from(signature, 'base64').toString('utf8').split(SEAL_JOIN);
  return seals.every(isSeal) ? seals : undefined;
}

/** A sealed reasoning part opened, or undefined (listed) when it does not open. */
export function openSeal(token: string, ctx: Ir.TranslateContext): Ir.ReasoningPart | undefined {
  const carried = ctx.seal?.open(token, '');
  if (carried === undefined) {
    warn(ctx, 'unverified reasoning');
    return undefined;
  }
  const text = carried.text ?? '';
  return {
    type: 'reasoning',
    ...(carried.summary ? { text: '', summary: [text] } : { text }),
    ...(carried.encrypted !== undefined ? { encrypted: carried.encrypted } : {}),
    ...(carried.id !== undefined ? { id: carried.id } : {}),
    ...(carried.signature !== undefined ? { signature: carried.signature } : {}),
    ...(carried.redacted !== undefined ? { redacted: carried.redacted } : {}),
    ...(carried.details !== undefined ? { details: carried.details } : {}),
  };
}

/**
 * Whether a text part's signature stays out of an answer to this caller because text of the answer
 * came before it. Gemini 3 signs the last part of a turn without function calls, and a stream sends
 * that signature after the text: to a Messages caller it would be a thinking block after the text,
 * and Claude Code takes a turn's last block for its result (empty, then). Google checks only the
 * signatures of function calls; a text part's is recommended back, not required, so here it is
 * dropped (and listed). A text part's signature before any text (a whole answer's one text part, a
 * stream's first text chunk) still goes before the text, as for every caller.
 */
export const dropsTextSignature = (ctx: Ir.TranslateContext, afterText: boolean): boolean => afterText && ctx.caller === 'messages';

/** What a dropped text signature is listed as. */
export const TEXT_SIGNATURE_DROPPED = 'text signature after text';

/** A part's `thoughtSignature`, if it has a real one. */
export function partSignature(part: Json): string | undefined {
  const signature = str(part.thoughtSignature);
  return signature && !isDummySignature(signature) ? signature : undefined;
}


/** The part without its Gemini signatures that `placed` puts on their function calls (the rest are positional). */
export function unplacedPart(part: Ir.ReasoningPart, placed: (callId: string) => boolean): Ir.ReasoningPart {
  if (part.details === undefined) return part;
  return { ...part, details: part.details.filter((e) => !(isGeminiEntry(e) && typeof e.id === 'string' && placed(e.id))) };
}
