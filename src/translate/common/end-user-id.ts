/**
 * End-user ids across protocols. OpenAI's `safety_identifier` (Chat and Responses) takes at
 * most 64 characters and rejects a request with a longer one; Anthropic's `metadata.user_id`
 * takes more, and Claude Code fills it with a JSON string of about 150 characters
 * (`{"device_id":"<64 hex>","account_uuid":"","session_id":"<uuid>"}`). A longer id goes to
 * OpenAI as its SHA-256 in hex (exactly 64 characters): still stable for the same caller id,
 * and opaque, which is what OpenAI asks for anyway.
 */
import { createHash } from 'node:crypto';

export const OPENAI_MAX_SAFETY_IDENTIFIER = 64;

export function openaiSafetyIdentifier(user: string): string {
  if (user.length <= OPENAI_MAX_SAFETY_IDENTIFIER) return user;
  return createHash('sha256').update(user).digest('hex');
}
