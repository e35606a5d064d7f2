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
import type { Usage } from '../types.js';

/** Reads a `usage` object; missing counts stay undefined so later events can fill them. */
export function anthropicUsage(u: unknown): Usage {
  if (!isObject(u)) return {};
  const input = num(u.input_tokens);
  const read = num(u.cache_read_input_tokens) ?? 0;
  const written = num(u.cache_creation_input_tokens) ?? 0;
  return dropUndefined({
    inputTokens: input === undefined ? undefined : input + read + written,
    outputTokens: num(u.output_tokens),
    cachedTokens: read || undefined,
    cacheWriteTokens: written || undefined,
  });
}

export const messagesUsage = (message: unknown): Usage => anthropicUsage(isObject(message) ? message.usage : undefined);

/** The event names `onEvent` acts on; a chunk of whole events holding none of these is skipped undecoded. */
const MESSAGE_EVENTS = ['message_start', 'message_delta', ...STREAM_ENDS.messages.proper, ...STREAM_ENDS.messages.error];
const MESSAGES_SKIP = { markers: MESSAGE_EVENTS.map((m) => Buffer.from(m)) };
const TERMINAL = new Set<string>([...STREAM_ENDS.messages.proper, ...STREAM_ENDS.messages.error]);

export function createMessagesWatch(): StreamWatch {
  // Data properties the watcher updates, not getters over its locals: see StreamWatch.
  const watch = {
    usage: {} as Usage,
    finished: false,
    onEvent({ event, data }: SseEvent) {
      switch (event) {
        case 'message_start': {
          const parsed = parseJson(data);
          if (isObject(parsed)) watch.usage = messagesUsage(parsed.message);
          break;
        }
        case 'message_delta': {
          // Counts here are cumulative totals that override message_start's.
          const parsed = parseJson(data);
          if (isObject(parsed)) watch.usage = { ...watch.usage, ...anthropicUsage(parsed.usage) };
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
