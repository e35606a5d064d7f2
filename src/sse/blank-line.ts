/**
 * The line ends of server-sent events (LF, CR, CRLF) as bytes, and the one check both the
 * whole-event cutter and the skipping decoder make on each chunk: does it end an event?
 */

export const LF = 0x0a;
export const CR = 0x0d;

export const isLineEnd = (b: number | undefined): boolean => b === LF || b === CR;

/**
 * The chunk's last line is empty and ended by an LF (alone or as CRLF), and the line end before it
 * is in the chunk too, so the chunk ends an event whatever came before it. A chunk that ends with
 * CR may be the first half of a CRLF (a decoder still holds it), and a chunk that is only a line
 * end may end a line the previous chunk left open: neither counts, and a caller that knows the
 * bytes before the chunk finds such ends its own way.
 */
export function endsWithBlankLine(b: Buffer): boolean {
  const n = b.length;
  if (b[n - 1] !== LF) return false;
  const before = b[n - 2] === CR ? n - 3 : n - 2;
  return before >= 0 && isLineEnd(b[before]);
}
