/**
 * Chat Completions usage and stream following. `prompt_tokens` already includes cached tokens, on
 * OpenAI and on every compatible server read here.
 * @see docs/protocols.md, "Chat usage"
 */
import { chatStreamErrorFrame } from '../errors.js';
import { dropUndefined, isObject } from '../shallow.js';
import { num, parseJson } from '../json.js';
import { STREAM_ENDS } from '../stream-ends.js';
import type { StreamWatch } from '../stream-watch.js';
import type { SseEvent } from '../../sse/parse.js';
import { skipMarkers } from '../../sse/skip.js';
import type { Usage } from '../types.js';
import { firstCount, logUsage, type UsageCounts } from '../usage.js';

/**
 * A Chat `usage` object's counts: the one place its fields are read. Reasoning tokens count inside
 * the completion total. Cache reads are OpenAI's `prompt_tokens_details.cached_tokens` (vLLM,
 * OpenRouter and Kimi's newer models say the same), DeepSeek's `prompt_cache_hit_tokens` (its
 * `prompt_tokens` is hits plus misses; it writes to its cache without counting the writes) or Kimi's
 * `cached_tokens` at the top. Cache writes are OpenRouter's `prompt_tokens_details.cache_write_tokens`
 * (the gateway's translated answers use it too), `cache_write_tokens` at the top on some compatible
 * servers, or `cache_creation_input_tokens` where a proxy (LiteLLM) passes Anthropic's count on.
 * OpenRouter's `cost` is money, not tokens, and is not read.
 */
export function chatUsageCounts(u: unknown): UsageCounts {
  if (!isObject(u)) return {};
  const prompt = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const completion = isObject(u.completion_tokens_details) ? u.completion_tokens_details : {};
  const hits = num(u.prompt_cache_hit_tokens);
  const misses = num(u.prompt_cache_miss_tokens);
  return dropUndefined({
    inputTokens: num(u.prompt_tokens) ?? (hits !== undefined || misses !== undefined ? (hits ?? 0) + (misses ?? 0) : undefined),
    outputTokens: num(u.completion_tokens),
    cacheReadTokens: firstCount(num(prompt.cached_tokens), hits, num(u.cached_tokens)),
    cacheWriteTokens: firstCount(num(prompt.cache_write_tokens), num(u.cache_write_tokens), num(u.cache_creation_input_tokens)),
    reasoningTokens: num(completion.reasoning_tokens),
  });
}

/**
 * The `usage` object of a Chat answer or stream chunk. Kimi (Moonshot) puts a stream's usage in
 * its last chunk's choice rather than at the top.
 */
export function chatUsageObject(json: unknown): unknown {
  if (!isObject(json)) return undefined;
  if (isObject(json.usage)) return json.usage;
  const [choice] = Array.isArray(json.choices) ? json.choices : [];
  return isObject(choice) ? choice.usage : undefined;
}

/** Usage of a whole Chat answer, for the log. */
export const chatUsage = (json: unknown): Usage => logUsage(chatUsageCounts(chatUsageObject(json)));

/** What `onEvent` looks for; a chunk of whole events holding none of these is skipped undecoded. */
const CHAT_SKIP = { markers: skipMarkers([...STREAM_ENDS.chat.proper, '"usage":{', '"finish_reason":"', '"error"']) };
const [DONE] = STREAM_ENDS.chat.proper;

export function createChatWatch(): StreamWatch {
  // Data properties the watcher updates, not getters over its locals: see StreamWatch.
  const watch = {
    usage: {} as Usage,
    finished: false,
    onEvent({ data }: SseEvent) {
      if (data === DONE) {
        watch.finished = true;
        return;
      }
      // Most chunks are deltas; parse only those that can carry usage, an end or an error.
      const hasUsage = data.includes('"usage":{');
      const hasFinish = !watch.finished && data.includes('"finish_reason":"');
      const hasError = data.includes('"error"');
      if (!hasUsage && !hasFinish && !hasError) return;
      const chunk = parseJson(data);
      if (!isObject(chunk)) return;
      if (hasUsage) watch.usage = { ...watch.usage, ...chatUsage(chunk) };
      if (hasFinish || (hasError && chunk.error)) watch.finished = true;
    },
    errorFrames: chatStreamErrorFrame,
    skip: CHAT_SKIP,
  };
  return watch;
}
