/**
 * Anthropic thinking inside Responses reasoning items. A Responses caller (Codex)
 * replays every reasoning item it received, with its `encrypted_content`, on the
 * next turn; Claude requires its signed `thinking` (and `redacted_thinking`)
 * blocks back unchanged in a tool loop. So when Claude's reasoning goes out to a
 * Responses caller, its signature (or redacted data) is carried in
 * `encrypted_content` behind a marker, with the thinking text as the summary, and
 * a replayed item carrying the marker turns back into the signed block.
 */
import type { ReasoningPart, TranslateContext } from '../../../translate/ir.js';
import { isSeal } from '../../../translate/common/reasoning-seal.js';
import { warn } from '../../../translate/common/warn.js';

const SIGNATURE = 'anthropic-signature:';
const REDACTED = 'anthropic-redacted:';

type Carried = Pick<ReasoningPart, 'encrypted' | 'signature' | 'redacted' | 'details'> & Partial<Pick<ReasoningPart, 'text' | 'summary'>>;

/**
 * The text a replayed item shows as its reasoning: its `reasoning_text` content, else its summary.
 * Seals cover it, so it must be the same when written and when read back.
 */
export const replayedText = (part: Partial<Pick<ReasoningPart, 'text' | 'summary'>>): string => part.text || (part.summary ?? []).join('');

/**
 * The `encrypted_content` to send a Responses caller for this reasoning, if any. OpenRouter-style
 * `reasoning_details` (from a Chat upstream) have no Responses field: they ride in the gateway's seal,
 * so only this gateway can bring them back (with the text, unaltered).
 */
export function carrierFor(part: Carried, ctx: TranslateContext): string | undefined {
  if (part.encrypted !== undefined) return part.encrypted;
  if (part.signature !== undefined && part.signature !== '') return SIGNATURE + part.signature;
  if (part.redacted !== undefined) return REDACTED + part.redacted;
  if (part.details === undefined) return undefined;
  if (ctx.seal) return ctx.seal.seal(replayedText(part), { details: part.details });
  warn(ctx, 'reasoning details');
  return undefined;
}

/**
 * A replayed item's `encrypted_content` → the fields it carries (Anthropic's signature or redacted
 * data, or the gateway's seal), or undefined when it is ordinary OpenAI encrypted reasoning. `text`
 * is the reasoning text the signature or seal covers. `null`: a seal that does not open (forged,
 * altered, another install's), whose reasoning must be dropped.
 */
export function fromCarrier(encrypted: string, text: string, ctx: TranslateContext): Omit<ReasoningPart, 'type'> | null | undefined {
  if (encrypted.startsWith(SIGNATURE)) return { text, signature: encrypted.slice(SIGNATURE.length) };
  if (encrypted.startsWith(REDACTED)) return { text: '', redacted: encrypted.slice(REDACTED.length) };
  if (!isSeal(encrypted)) return undefined;
  const carried = ctx.seal?.open(encrypted, text);
  if (carried === undefined) {
    warn(ctx, 'unverified reasoning');
    return null;
  }
  return { text, ...(carried.details !== undefined ? { details: carried.details } : {}) };
}
