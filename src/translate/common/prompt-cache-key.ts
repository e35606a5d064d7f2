/**
 * Prompt-cache keys across protocols. OpenAI's `prompt_cache_key` (Chat and Responses) routes
 * requests with the same key to the same prompt cache; it takes at most 64 characters and rejects
 * a request with a longer one. A longer key goes as its SHA-256 in hex (exactly 64 characters):
 * still the same for every request of the conversation, which is all the key is for.
 */
import { createHash } from 'node:crypto';

export const OPENAI_MAX_PROMPT_CACHE_KEY = 64;

export function openaiPromptCacheKey(key: string): string {
  if (key.length <= OPENAI_MAX_PROMPT_CACHE_KEY) return key;
  return createHash('sha256').update(key).digest('hex');
}

/**
 * Claude Code's session id from its `metadata.user_id`: a JSON string
 * (`{"device_id":…,"account_uuid":…,"session_id":…}`) in current versions,
 * `user_<hash>_account_<uuid>_session_<uuid>` in older ones. Undefined for any other user id.
 */
export function claudeCodeSessionId(userId: string): string | undefined {
  if (userId.startsWith('{')) {
    try {
      const parsed = JSON.parse(userId) as unknown;
      const id = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).session_id : undefined;
      return typeof id === 'string' && id !== '' ? id : undefined;
    } catch {
      return undefined;
    }
  }
  return /_session_([0-9a-f-]{8,})$/i.exec(userId)?.[1];
}
