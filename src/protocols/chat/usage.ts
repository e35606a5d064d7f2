/**
 * Chat Completions usage and stream following. `prompt_tokens` already includes cached tokens.
 * @see docs/protocols.md, "Chat usage"
 */
import { chatStreamErrorFrame } from '../errors.js';
import { dropUndefined, isObject } from '../shallow.js';
import { num, parseJson } from '../json.js';
import { STREAM_ENDS } from '../stream-ends.js';
import type { StreamWatch } from '../stream-watch.js';
import type { SseEvent } from '../../sse/parse.js';
import type { Usage } from '../types.js';
import { logUsage, type UsageCounts } from '../usage.js';

/** A Chat `usage` object's counts: the one place its fields are read. Reasoning tokens count inside the completion total. */
export function chatUsageCounts(u: unknown): UsageCounts {
  if (!isObject(u)) return {};
  const prompt = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const completion = isObject(u.completion_tokens_details) ? u.completion_tokens_details : {};
  return dropUndefined({
    inputTokens: num(u.prompt_tokens),
    outputTokens: num(u.completion_tokens),
    cacheReadTokens: num(prompt.cached_tokens),
    // OpenRouter-style servers and the gateway's translated answers report cache writes under the
    // prompt details; some compatible servers at the top.
    cacheWriteTokens: num(prompt.cache_write_tokens) ?? num(u.cache_write_tokens),
    reasoningTokens: num(completion.reasoning_tokens),
  });
}

/** Usage of a whole Chat answer, for the log. */
export const chatUsage = (json: unknown): Usage => logUsage(chatUsageCounts(isObject(json) ? json.usage : undefined));

/** What `onEvent` looks for; a chunk of whole events holding none of these is skipped undecoded. */
const CHAT_SKIP = { markers: [...STREAM_ENDS.chat.proper, '"usage":{', '"finish_reason":"', '"error"'].map((m) => Buffer.from(m)) };
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
