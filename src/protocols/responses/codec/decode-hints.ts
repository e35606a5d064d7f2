/**
 * The Responses request fields that ask nothing of the model's answer, or ask what no other
 * protocol's request can say, and how a translated route treats each. Codex sends all of them
 * on every turn (test/fixtures/clients): each is either mapped elsewhere in the decoder or
 * dropped here, and a drop that changes what the caller gets is listed in the warnings (the
 * `x-model-gateway-dropped` header and the log). Drops that change nothing are not listed, so
 * that the list names what matters.
 * @see README.md, "Translation" › "What is lossy, and how it is handled"
 */
import { isObject, type Json } from '../../shallow.js';
import type { TranslateContext } from '../../../translate/ir.js';
import { str, warn } from './read.js';

/**
 * `include` values a translated answer honours anyway: the upstream's reasoning always comes
 * back in the reasoning item's `encrypted_content`, the one place a Responses caller keeps it.
 */
const HONOURED_INCLUDES: ReadonlySet<string> = new Set(['reasoning.encrypted_content']);

/** Tiers that ask for nothing beyond the default. */
const DEFAULT_TIERS: ReadonlySet<string> = new Set(['auto', 'default']);

/*
 * Not sent, and not listed, because dropping them changes nothing the caller gets:
 * - `store`: whether the provider keeps the response; an upstream of another protocol is never asked to.
 * - `client_metadata`: Codex's telemetry for OpenAI (session, turn and window ids); nothing for the model.
 * - `truncation`: what to do past the context window; the upstream refuses such a request either way.
 */

/** Warns about the hint fields whose drop changes the answer or its cost. */
export function warnDroppedHints(body: Json, ctx: TranslateContext): void {
  if (Array.isArray(body.include)) {
    for (const value of body.include) {
      if (typeof value === 'string' && !HONOURED_INCLUDES.has(value)) warn(ctx, `include ${value}`);
    }
  }
  const tier = str(body.service_tier);
  // Priority and flex change price and speed; another provider offers neither under that name.
  if (tier !== undefined && !DEFAULT_TIERS.has(tier)) warn(ctx, `service_tier ${tier}`);
  // Verbosity has no field in Chat Completions' common subset nor in Messages: the answer's length follows the model's habit.
  if (isObject(body.text) && str(body.text.verbosity) !== undefined) warn(ctx, 'text.verbosity');
}
