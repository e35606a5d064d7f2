/**
 * Gemini usage and stream following. `usageMetadata.promptTokenCount` already includes the cached
 * tokens (`cachedContentTokenCount`); `candidatesTokenCount` leaves out the thinking
 * (`thoughtsTokenCount`), which the IR counts inside the output; `toolUsePromptTokenCount` (what a
 * built-in tool such as search fed back to the model) is input. A stream is one
 * `GenerateContentResponse` per `data:` event, each of them a whole answer so far: the last one that
 * states usage states all of it. The stream ends with the chunk whose candidate has a `finishReason`
 * (the last Google sends, usage on it), with a prompt refused outright (`promptFeedback.blockReason`,
 * no candidates), or with an `{"error": …}` chunk.
 * @see docs/protocols.md, "Gemini usage"
 */
import type { SseEvent } from '../../sse/parse.js';
import { skipMarkers } from '../../sse/skip.js';
import { geminiStreamErrorFrame } from '../errors.js';
import { isObject, num, parseJson } from '../json.js';
import { dropUndefined } from '../shallow.js';
import { geminiEventType, STREAM_ENDS } from '../stream-ends.js';
import type { StreamWatch } from '../stream-watch.js';
import type { Usage } from '../types.js';
import { logUsage, type UsageCounts } from '../usage.js';

/**
 * A `usageMetadata` object's counts in the IR's terms: the one place its fields are read. Google's
 * JSON takes snake_case names too, and a proxy in front may answer with them.
 */
export function geminiUsageCounts(u: unknown): UsageCounts {
  if (!isObject(u)) return {};
  const prompt = num(u.promptTokenCount ?? u.prompt_token_count);
  const toolUse = num(u.toolUsePromptTokenCount ?? u.tool_use_prompt_token_count);
  const candidates = num(u.candidatesTokenCount ?? u.candidates_token_count);
  const thoughts = num(u.thoughtsTokenCount ?? u.thoughts_token_count);
  return dropUndefined({
    inputTokens: prompt === undefined && toolUse === undefined ? undefined : (prompt ?? 0) + (toolUse ?? 0),
    outputTokens: candidates === undefined && thoughts === undefined ? undefined : (candidates ?? 0) + (thoughts ?? 0),
    cacheReadTokens: num(u.cachedContentTokenCount ?? u.cached_content_token_count),
    reasoningTokens: thoughts,
  });
}

/** The `usageMetadata` of an answer or a stream chunk. */
export const geminiUsageObject = (json: unknown): unknown => (isObject(json) ? (json.usageMetadata ?? json.usage_metadata) : undefined);

/** Usage of a whole Gemini answer, for the log. */
export const geminiUsage = (json: unknown): Usage => logUsage(geminiUsageCounts(geminiUsageObject(json)));

/** What `onEvent` looks for; a chunk of whole events holding none of these is skipped undecoded. */
const MARKERS = ['"usageMetadata"', '"usage_metadata"', '"finishReason"', '"finish_reason"', '"blockReason"', '"block_reason"', '"error"'];
const GEMINI_SKIP = { markers: skipMarkers(MARKERS) };
const ENDS = new Set<string>([...STREAM_ENDS.gemini.proper, ...STREAM_ENDS.gemini.error]);

export function createGeminiWatch(): StreamWatch {
  // Data properties the watcher updates, not getters over its locals: see StreamWatch.
  const watch = {
    usage: {} as Usage,
    finished: false,
    onEvent({ data }: SseEvent) {
      // Most chunks are text deltas: parse only those that can carry usage, an end or an error.
      if (!MARKERS.some((m) => data.includes(m))) return;
      const chunk = parseJson(data);
      if (!isObject(chunk)) return;
      const usage = geminiUsageObject(chunk);
      // Each chunk's usage is the answer's so far: the later one replaces the earlier.
      if (isObject(usage)) watch.usage = { ...watch.usage, ...geminiUsage(chunk) };
      if (ENDS.has(geminiEventType(chunk))) watch.finished = true;
    },
    errorFrames: geminiStreamErrorFrame,
    skip: GEMINI_SKIP,
  };
  return watch;
}
