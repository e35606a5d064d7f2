/**
 * Responses usage and stream following. `input_tokens` already includes cached tokens.
 * @see docs/protocols.md, "Responses usage"
 */
import { responsesStreamErrorFrames } from '../errors.js';
import { dropUndefined, isObject } from '../shallow.js';
import { num, parseJson } from '../json.js';
import { STREAM_ENDS } from '../stream-ends.js';
import type { StreamWatch } from '../stream-watch.js';
import type { SseEvent } from '../../sse/parse.js';
import { skipMarkers } from '../../sse/skip.js';
import type { GatewayError } from '../../errors.js';
import type { Usage } from '../types.js';
import { logUsage, type UsageCounts } from '../usage.js';

/** A Responses `usage` object's counts: the one place its fields are read. */
export function responsesUsageCounts(u: unknown): UsageCounts {
  if (!isObject(u)) return {};
  const input = isObject(u.input_tokens_details) ? u.input_tokens_details : {};
  const output = isObject(u.output_tokens_details) ? u.output_tokens_details : {};
  return dropUndefined({
    inputTokens: num(u.input_tokens),
    outputTokens: num(u.output_tokens),
    cacheReadTokens: num(input.cached_tokens),
    // Not in OpenAI's own answers; the gateway's translated answers and some compatible servers carry it.
    cacheWriteTokens: num(input.cache_write_tokens),
    reasoningTokens: num(output.reasoning_tokens),
  });
}

/** Usage of a whole Responses answer (its `response` object), for the log. */
export const responsesUsage = (response: unknown): Usage => logUsage(responsesUsageCounts(isObject(response) ? response.usage : undefined));

const TERMINAL = new Set<string>([...STREAM_ENDS.responses.proper, ...STREAM_ENDS.responses.error]);
const TYPE_IN_DATA = /"type"\s*:\s*"([^"]+)"/;
/** The types `onEvent` acts on beyond counting; a chunk of whole events holding none of these is skipped undecoded. */
const MARKERS = skipMarkers(['response.created', ...TERMINAL]);

export function createResponsesWatch(): StreamWatch {
  let events = 0;
  let announced: Record<string, unknown> | undefined;
  // Data properties the watcher updates, not getters over its locals: see StreamWatch.
  const watch = {
    usage: {} as Usage,
    finished: false,
    onEvent({ event, data }: SseEvent) {
      events++;
      // Some OpenAI-compatible servers omit `event:` lines; the type is then only in the data.
      const type = event ?? TYPE_IN_DATA.exec(data.slice(0, 200))?.[1];
      if (type === 'response.created') {
        const parsed = parseJson(data);
        if (isObject(parsed) && isObject(parsed.response)) announced = parsed.response;
      } else if (type !== undefined && TERMINAL.has(type)) {
        watch.finished = true;
        const parsed = parseJson(data);
        if (isObject(parsed) && isObject(parsed.response)) watch.usage = responsesUsage(parsed.response);
      }
    },
    errorFrames: (err: GatewayError) => responsesStreamErrorFrames(err, events, announced),
    // The error frames number events, so skipped ones are still counted.
    skip: {
      markers: MARKERS,
      skipped: (n: number) => {
        events += n;
      },
    },
  };
  return watch;
}
