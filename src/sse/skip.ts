/**
 * A passthrough relay follows a stream only for a few of its events (usage, the
 * proper end, an error); most chunks are content deltas its watcher ignores, and
 * decoding each one to text and splitting it into events cost more than relaying
 * it. So a chunk is not decoded at all when (1) the decoder holds nothing from
 * before it (no chunk yet, or the previous one ended with a blank line, which also
 * leaves no partial UTF-8 character and no pending CR), (2) it ends with a blank
 * line itself, so the decoder would hold nothing after it either, and (3) none of
 * the watcher's markers occurs in its bytes. Markers are ASCII with no line break:
 * an event the watcher acts on holds one within a single line, so in the raw bytes
 * too, and skipping a chunk without any changes nothing the watcher would see.
 */
import { CR, endsWithBlankLine, LF } from './blank-line.js';
import type { SseDecoder, SseEvent } from './parse.js';

const COLON = 0x3a;
const NOTHING: SseEvent[] = [];

export interface SkipRule {
  /** Byte strings of which every event the watcher acts on (beyond counting it) holds at least one; made by `skipMarkers`. */
  readonly markers: readonly Buffer[];
  /** Told how many events a skipped chunk held, for a watcher that numbers events. */
  readonly skipped?: (events: number) => void;
}

/**
 * A watcher's markers as the skip rule holds them: without a leading quote, which JSON is full of and
 * at each of which the native search stops to compare (twice the cost of a marker that starts with a
 * letter). A marker without its quote still occurs in every event that holds the marker with it.
 */
export const skipMarkers = (markers: readonly string[]): Buffer[] => markers.map((m) => Buffer.from(m.charCodeAt(0) === 0x22 ? m.slice(1) : m));

/** `decoder`, made to skip the chunks `rule` says nobody needs decoded; the decoder itself without a rule. */
export function skippingDecoder(decoder: SseDecoder, rule: SkipRule | undefined): SseDecoder {
  if (!rule) return decoder;
  const { markers, skipped } = rule;
  let idle = true;
  return {
    push(chunk) {
      if (typeof chunk === 'string' || chunk.length === 0) return decoder.push(chunk);
      const whole = endsWithBlankLine(chunk);
      if (idle && whole && !holdsAny(chunk, markers)) {
        if (!skipped) return NOTHING;
        const events = countEvents(chunk);
        if (events !== undefined) {
          skipped(events);
          return NOTHING;
        }
      }
      idle = whole;
      return decoder.push(chunk);
    },
    end: () => decoder.end(),
  };
}

function holdsAny(b: Buffer, markers: readonly Buffer[]): boolean {
  for (const m of markers) if (b.indexOf(m) !== -1) return true;
  return false;
}

/**
 * Events the decoder would emit for a chunk of whole events: blocks ended by a blank line
 * that hold a `data` field. Undefined when the chunk has a CR (rare; it is decoded instead).
 */
function countEvents(b: Buffer): number | undefined {
  if (b.indexOf(CR) !== -1) return undefined;
  let events = 0;
  let hasData = false;
  for (let start = 0; start < b.length; ) {
    let lf = b.indexOf(LF, start);
    if (lf === -1) lf = b.length;
    if (lf === start) {
      if (hasData) events++;
      hasData = false;
    } else if (
      b[start] === 0x64 /* d */ &&
      b[start + 1] === 0x61 /* a */ &&
      b[start + 2] === 0x74 /* t */ &&
      b[start + 3] === 0x61 /* a */ &&
      (lf === start + 4 || b[start + 4] === COLON)
    ) {
      hasData = true;
    }
    start = lf + 1;
  }
  return events;
}
