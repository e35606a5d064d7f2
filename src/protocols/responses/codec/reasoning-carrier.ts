/**
 * Anthropic thinking inside Responses reasoning items. A Responses caller (Codex)
 * replays every reasoning item it received, with its `encrypted_content`, on the
 * next turn; Claude requires its signed `thinking` (and `redacted_thinking`)
 * blocks back unchanged in a tool loop. So when Claude's reasoning goes out to a
 * Responses caller, its signature (or redacted data) is carried in
 * `encrypted_content` behind a marker, with the thinking text as the summary, and
 * a replayed item carrying the marker turns back into the signed block.
 */
import type { ReasoningPart } from '../../../translate/ir.js';

const SIGNATURE = 'anthropic-signature:';
const REDACTED = 'anthropic-redacted:';

/** The `encrypted_content` to send a Responses caller for this reasoning, if any. */
export function carrierFor(part: Pick<ReasoningPart, 'encrypted' | 'signature' | 'redacted'>): string | undefined {
  if (part.encrypted !== undefined) return part.encrypted;
  if (part.signature !== undefined && part.signature !== '') return SIGNATURE + part.signature;
  if (part.redacted !== undefined) return REDACTED + part.redacted;
  return undefined;
}

/**
 * A replayed item's `encrypted_content` → the Anthropic fields it carries, or undefined when it is
 * ordinary OpenAI encrypted reasoning. `text` is the thinking text the signature covers.
 */
export function fromCarrier(encrypted: string, text: string): Pick<ReasoningPart, 'text' | 'signature' | 'redacted'> | undefined {
  if (encrypted.startsWith(SIGNATURE)) return { text, signature: encrypted.slice(SIGNATURE.length) };
  if (encrypted.startsWith(REDACTED)) return { text: '', redacted: encrypted.slice(REDACTED.length) };
  return undefined;
}
