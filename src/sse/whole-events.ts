/**
 * Cuts an SSE byte stream after whole events: what `push` hands back ends with an event's
 * blank line, and the start of an event not yet ended waits for the chunk that ends it.
 * A relay that writes only these pieces can stop at any moment (the upstream breaks off,
 * times out, or sends too much) and add its own error event, which then starts on a fresh
 * line instead of being glued to half an event the client's SDK cannot parse
 * (docs/clients.md, "What breaks clients").
 *
 * The usual chunk ends with a blank line and nothing waits from before: it is handed back
 * as it is, after a look at its last few bytes. Otherwise the chunk is searched from its end
 * for the last blank line (LF, CR and CRLF line ends, which may be split across chunks),
 * and what follows it is kept as slices of the chunks, joined once its event ends, so a long
 * event arriving in many chunks is neither copied nor searched again with each one.
 */

import { CR, endsWithBlankLine, isLineEnd, LF } from './blank-line.js';

const EMPTY: Buffer = Buffer.alloc(0);

export interface WholeEvents {
  /** The whole events `chunk` completes (`chunk` itself, a part, or an empty Buffer); undefined once the held event is over the limit. */
  push(chunk: Buffer): Buffer | undefined;
  /** What waits: the start of an event the stream has not ended (empty when none). */
  rest(): Buffer;
}

/** @param limit most bytes of one unfinished event held; more and `push` answers undefined. */
export function wholeEvents(limit: number): WholeEvents {
  let held: Buffer[] = [];
  let heldBytes = 0;
  // The two bytes before the next chunk, while something is held. When nothing is, the stream
  // is at an event's end: as if after a blank line.
  let last = LF;
  let beforeLast = LF;

  const hold = (part: Buffer) => {
    held.push(part);
    heldBytes += part.length;
    if (part.length >= 2) {
      beforeLast = part[part.length - 2]!;
      last = part[part.length - 1]!;
    } else if (part.length === 1) {
      beforeLast = last;
      last = part[0]!;
    }
  };

  return {
    push(chunk) {
      const n = chunk.length;
      if (n === 0) return EMPTY;
      if (heldBytes === 0 && endsWithBlankLine(chunk)) return chunk;
      const end = lastEventEnd(chunk, last, beforeLast);
      let out: Buffer = EMPTY;
      if (end > 0) {
        const done = end === n ? chunk : chunk.subarray(0, end);
        out = heldBytes === 0 ? done : Buffer.concat([...held, done], heldBytes + end);
        held = [];
        heldBytes = 0;
        last = beforeLast = LF;
      }
      if (end < n) hold(end === 0 ? chunk : chunk.subarray(end));
      return heldBytes > limit ? undefined : out;
    },
    rest() {
      const out = held.length === 1 ? held[0]! : held.length === 0 ? EMPTY : Buffer.concat(held, heldBytes);
      held = [];
      heldBytes = 0;
      last = beforeLast = LF;
      return out;
    },
  };
}

/**
 * Where the last blank line in `b` ends (the index after it), or 0 when `b` has none. `last` and
 * `beforeLast` are the two bytes before `b`, for a line end split across chunks.
 */
export function lastEventEnd(b: Buffer, last: number, beforeLast: number): number {
  const at = (i: number) => (i >= 0 ? b[i] : i === -1 ? last : beforeLast);
  let lf = b.lastIndexOf(LF);
  let cr = b.lastIndexOf(CR);
  while (lf !== -1 || cr !== -1) {
    const i = Math.max(lf, cr);
    // The byte before this line end (before the CR of a CRLF): a line end too, and the line between is empty.
    const before = i === lf && at(i - 1) === CR ? i - 2 : i - 1;
    if (isLineEnd(at(before))) return i + 1;
    if (before < 0) return 0;
    if (lf > before) lf = b.lastIndexOf(LF, before);
    if (cr > before) cr = b.lastIndexOf(CR, before);
  }
  return 0;
}
