/**
 * Anthropic usage and stream following. Anthropic's `input_tokens` EXCLUDES cache
 * reads and writes, so the log's input total adds them back.
 * @see docs/protocols.md, "Messages usage"
 */
import { messagesStreamErrorFrame } from '../errors.js';
import { dropUndefined, isObject } from '../shallow.js';
import { num, parseJson } from '../json.js';
import { STREAM_ENDS } from '../stream-ends.js';
import type { StreamWatch } from '../stream-watch.js';
import type { SseEvent } from '../../sse/parse.js';
import { skipMarkers } from '../../sse/skip.js';
import type { Usage } from '../types.js';
import { logUsage, type UsageCounts } from '../usage.js';

/** The counts an Anthropic `usage` object carries (message JSON, `message_start`, `message_delta`), as it states them. */
export interface AnthropicCounts {
  input?: number;
  output?: number;
  cacheWrite?: number;
  cacheRead?: number;
  /** The part of `cacheWrite` written for an hour (`cache_creation.ephemeral_1h_input_tokens`). */
  cacheWrite1h?: number;
  thinking?: number;
}

/**
 * Writes from `cache_creation`'s breakdown by lifetime, for a server that states only the breakdown:
 * Anthropic's `cache_creation_input_tokens` is already their sum.
 */
function writesByLifetime(creation: unknown): number | undefined {
  if (!isObject(creation)) return undefined;
  const short = num(creation.ephemeral_5m_input_tokens);
  const long = num(creation.ephemeral_1h_input_tokens);
  return short === undefined && long === undefined ? undefined : (short ?? 0) + (long ?? 0);
}

/** Reads the counts present in `usage`: the one place its fields are read (absent and null stay undefined, so later events can override). */
export function readCounts(usage: unknown): AnthropicCounts {
  if (!isObject(usage)) return {};
  return dropUndefined({
    input: num(usage.input_tokens),
    output: num(usage.output_tokens),
    cacheWrite: num(usage.cache_creation_input_tokens) ?? writesByLifetime(usage.cache_creation),
    cacheRead: num(usage.cache_read_input_tokens),
    cacheWrite1h: isObject(usage.cache_creation) ? num(usage.cache_creation.ephemeral_1h_input_tokens) : undefined,
    thinking: isObject(usage.output_tokens_details) ? num(usage.output_tokens_details.thinking_tokens) : undefined,
  });
}

/** Later counts override earlier ones (Anthropic's `message_delta` usage is cumulative, not incremental). */
export const mergeCounts = (base: AnthropicCounts, next: AnthropicCounts): AnthropicCounts => ({ ...base, ...next });

/** Anthropic counts in the IR's terms: the input total adds the cache reads and writes back. */
export function messagesUsageCounts(c: AnthropicCounts): UsageCounts {
  const anyInput = c.input !== undefined || c.cacheRead !== undefined || c.cacheWrite !== undefined;
  return dropUndefined({
    inputTokens: anyInput ? (c.input ?? 0) + (c.cacheRead ?? 0) + (c.cacheWrite ?? 0) : undefined,
    outputTokens: c.output,
    cacheReadTokens: c.cacheRead,
    cacheWriteTokens: c.cacheWrite,
    cacheWrite1hTokens: c.cacheWrite1h,
    reasoningTokens: c.thinking,
  });
}

/** Usage of one `usage` object, for the log. */
export const anthropicUsage = (u: unknown): Usage => logUsage(messagesUsageCounts(readCounts(u)));

export const messagesUsage = (message: unknown): Usage => anthropicUsage(isObject(message) ? message.usage : undefined);

/** The event names `onEvent` acts on; a chunk of whole events holding none of these is skipped undecoded. */
const MESSAGE_EVENTS = ['message_start', 'message_delta', ...STREAM_ENDS.messages.proper, ...STREAM_ENDS.messages.error];
const MESSAGES_SKIP = { markers: skipMarkers(MESSAGE_EVENTS) };
const TERMINAL = new Set<string>([...STREAM_ENDS.messages.proper, ...STREAM_ENDS.messages.error]);

export function createMessagesWatch(): StreamWatch {
  let counts: AnthropicCounts = {};
  // Data properties the watcher updates, not getters over its locals: see StreamWatch.
  const watch = {
    usage: {} as Usage,
    finished: false,
    onEvent({ event, data }: SseEvent) {
      switch (event) {
        case 'message_start': {
          const parsed = parseJson(data);
          if (isObject(parsed) && isObject(parsed.message)) counts = readCounts(parsed.message.usage);
          watch.usage = logUsage(messagesUsageCounts(counts));
          break;
        }
        case 'message_delta': {
          // Counts here are cumulative totals that override message_start's.
          const parsed = parseJson(data);
          if (isObject(parsed)) counts = mergeCounts(counts, readCounts(parsed.usage));
          watch.usage = logUsage(messagesUsageCounts(counts));
          break;
        }
        default:
          if (event !== undefined && TERMINAL.has(event)) watch.finished = true;
      }
    },
    errorFrames: messagesStreamErrorFrame,
    skip: MESSAGES_SKIP,
  };
  return watch;
}
