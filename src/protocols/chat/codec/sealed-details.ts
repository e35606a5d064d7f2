/**
 * Reasoning a Chat caller cannot hold in `reasoning_content`: OpenAI's encrypted reasoning (with its
 * item id) and Claude's signed or redacted thinking. Chat has no field for them, but clients that
 * speak OpenRouter's dialect keep `reasoning_details` and send it back on the next turn, so the
 * gateway gives each such reasoning part there as a `reasoning.text` entry of its own format, whose
 * `signature` is the gateway's seal over the entry's text (`common/reasoning-seal.ts`). A client that
 * sends back only `reasoning_content` loses them (README, "What is lossy"); a seal that does not
 * open is dropped and listed, never trusted.
 */
import type { AssistantPart, ReasoningPart, TranslateContext } from '../../../translate/ir.js';
import { isSeal } from '../../../translate/common/reasoning-seal.js';
import { reasoningText } from './encode-messages.js';
import { num, str, warn, type Json } from './read.js';

/** The `format` of the gateway's own entries. */
export const SEALED_FORMAT = 'model-gateway-v1';

type Sealable = Omit<ReasoningPart, 'type' | 'details'>;

/** Whether a part holds something only a seal can bring back through a Chat caller. */
const needsSeal = (part: Sealable): boolean => part.encrypted !== undefined || !!part.signature || part.redacted !== undefined;

/** The entry for one reasoning part, or undefined when it needs none (or the gateway has no seal). */
export function sealedEntry(part: Sealable, ctx: TranslateContext, index: number): Json | undefined {
  if (!needsSeal(part) || !ctx.seal) return undefined;
  const text = reasoningText(part);
  const signature = ctx.seal.seal(text, {
    ...(part.encrypted !== undefined ? { encrypted: part.encrypted } : {}),
    ...(part.id !== undefined ? { id: part.id } : {}),
    ...(part.signature ? { signature: part.signature } : {}),
    ...(part.redacted !== undefined ? { redacted: part.redacted } : {}),
    ...(part.summary?.length ? { summary: true } : {}),
  });
  return { type: 'reasoning.text', text, signature, format: SEALED_FORMAT, index };
}

/** Every `reasoning_details` entry of an answer: the upstream's own, then one per part that needs a seal. */
export function detailsOf(content: readonly AssistantPart[], ctx: TranslateContext): Json[] {
  const entries: Json[] = [];
  for (const p of content) {
    if (p.type !== 'reasoning') continue;
    if (p.details !== undefined) entries.push(...p.details);
    else {
      const entry = sealedEntry(p, ctx, entries.length);
      if (entry) entries.push(entry);
    }
  }
  return entries;
}

const isSealedEntry = (e: Json): boolean => e.format === SEALED_FORMAT && typeof e.signature === 'string' && isSeal(e.signature);

/**
 * A Chat caller's `reasoning_details` sent back → reasoning parts: the gateway's entries opened into
 * the parts they were made from (in the entries' order), the rest kept as the upstream's details.
 * `sealed` is false when there were none of the gateway's entries, so `reasoning_content` stands.
 */
export function openDetails(details: readonly Json[], ctx: TranslateContext): { parts: ReasoningPart[]; sealed: boolean } {
  const own = details.filter(isSealedEntry);
  if (own.length === 0) return { parts: [], sealed: false };
  const parts: ReasoningPart[] = [];
  const ordered = [...own].sort((a, b) => (num(a.index) ?? 0) - (num(b.index) ?? 0));
  for (const entry of ordered) {
    const text = str(entry.text) ?? '';
    const carried = ctx.seal?.open(entry.signature as string, text);
    if (carried === undefined) {
      warn(ctx, 'unverified reasoning');
      continue;
    }
    parts.push({
      type: 'reasoning',
      ...(carried.summary ? { text: '', summary: [text] } : { text }),
      ...(carried.encrypted !== undefined ? { encrypted: carried.encrypted } : {}),
      ...(carried.id !== undefined ? { id: carried.id } : {}),
      ...(carried.signature !== undefined ? { signature: carried.signature } : {}),
      ...(carried.redacted !== undefined ? { redacted: carried.redacted } : {}),
    });
  }
  const rest = details.filter((e) => !isSealedEntry(e));
  if (rest.length > 0) parts.push({ type: 'reasoning', text: '', details: rest });
  return { parts, sealed: true };
}
