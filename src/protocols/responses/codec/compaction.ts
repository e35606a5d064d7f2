/**
 * Codex's remote compaction (its built-in OpenAI provider): an ordinary Responses request whose
 * `input` ends with a `compaction_trigger` item, answered by exactly one opaque `compaction` item,
 * which then stands for the whole history on later turns. On a translated route the gateway asks
 * the model for the summary itself (the instruction of its own compaction, `src/compact`), and the
 * `compaction` item it answers holds the summary in the gateway's seal, so only this install can
 * open it and a caller cannot forge one.
 */
import { GatewayError } from '../../../errors.js';
import { isObject, type Json } from '../../shallow.js';
import type { TranslateContext, UserPart } from '../../../translate/ir.js';
import { SUMMARY_PREFIX } from '../../../compact/compacted.js';
import { SUMMARY_INSTRUCTION } from '../../../compact/summary-request.js';
import { str } from './read.js';

/** The caller's request asks for a compaction: its last input item is a `compaction_trigger`. */
export function isCompactionRequest(body: Json): boolean {
  const input = body.input;
  if (!Array.isArray(input)) return false;
  const last: unknown = input[input.length - 1];
  return isObject(last) && last.type === 'compaction_trigger';
}

/** What the trigger becomes: the request to summarise the conversation, as the last user message. */
export const summaryInstruction = (): UserPart[] => [{ type: 'text', text: SUMMARY_INSTRUCTION }];

/** Without a seal the gateway cannot make an item it can read back: it fails before asking the model. */
export function requireSeal(ctx: TranslateContext): void {
  if (!ctx.seal) {
    throw new GatewayError('upstream_error', `The gateway cannot answer a compaction for model '${ctx.requestedModel}': it has no key to seal the summary with.`);
  }
}

/** The answer's one output item: the model's summary, sealed. */
export function compactionItem(summary: string, ctx: TranslateContext): Json {
  const text = summary.trim();
  if (text === '') throw new GatewayError('upstream_error', `Model '${ctx.upstreamModel}' answered the compaction without a summary.`);
  if (!ctx.seal) throw new GatewayError('upstream_error', 'The gateway has no key to seal the compaction summary with.');
  return { type: 'compaction', id: ctx.newId('cmp_'), encrypted_content: ctx.seal.seal('', { compaction: text }) };
}

/**
 * A replayed `compaction` item → the summary as a user message (the wording of the gateway's
 * own compaction), when it is this install's seal; otherwise undefined (OpenAI's own, or forged).
 */
export function openCompaction(item: Json, ctx: TranslateContext): UserPart[] | undefined {
  const token = str(item.encrypted_content);
  const summary = token !== undefined ? ctx.seal?.open(token, '')?.compaction : undefined;
  return summary !== undefined ? [{ type: 'text', text: SUMMARY_PREFIX + summary }] : undefined;
}
