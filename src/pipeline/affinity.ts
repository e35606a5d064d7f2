/**
 * Which conversation a request belongs to, for a provider with several credentials: requests of
 * one conversation go with one credential while it can take them, so that the upstream's prompt
 * cache, which is kept per account, keeps hitting. In order: the session the client names (Claude
 * Code's and Codex's session headers, already on the record), Codex's `prompt_cache_key`, Claude
 * Code's session inside `metadata.user_id`, else a digest of the conversation's opening (its
 * first message or input item, which every later turn repeats).
 */
import { createHash } from 'node:crypto';
import { isObject } from '../protocols/shallow.js';
import { claudeCodeSessionId } from '../translate/common/prompt-cache-key.js';
import type { ModelRequest } from './model-request.js';

export function affinityOf(r: ModelRequest): string | undefined {
  const session = r.ctx.record.sessionId;
  if (session !== undefined) return `s:${session}`;
  const body = r.body.get();
  if (typeof body.prompt_cache_key === 'string' && body.prompt_cache_key !== '') return `k:${body.prompt_cache_key}`;
  const userId = isObject(body.metadata) && typeof body.metadata.user_id === 'string' ? claudeCodeSessionId(body.metadata.user_id) : undefined;
  if (userId !== undefined) return `s:${userId}`;
  const opening = firstOf(body.messages) ?? firstOf(body.input) ?? (typeof body.input === 'string' ? body.input : undefined);
  if (opening === undefined) return undefined;
  const system = body.system ?? body.instructions;
  return `h:${createHash('sha256').update(JSON.stringify([system ?? null, opening])).digest('base64url').slice(0, 22)}`;
}

const firstOf = (list: unknown): unknown => (Array.isArray(list) && list.length > 0 ? list[0] : undefined);
