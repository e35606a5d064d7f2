/**
 * The pieces `wholeEvents` hands back must end exactly where the last blank line received so far
 * ends, whatever the line ends (LF, CR, CRLF, mixed) and wherever the chunks are cut, and together
 * with the rest be the stream's bytes unchanged. Checked against a plain left-to-right reading.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wholeEvents } from './whole-events.js';

/** Positions right after a blank line's end (after its CR, and after its LF when CRLF), by reading left to right. */
function eventEnds(s: string): Set<number> {
  const ends = new Set([0]);
  let lineStart = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c !== '\n' && c !== '\r') continue;
    const width = c === '\r' && s[i + 1] === '\n' ? 2 : 1;
    if (i === lineStart) {
      ends.add(i + 1);
      ends.add(i + width);
    }
    lineStart = i + width;
    i += width - 1;
  }
  return ends;
}

function cutAt(whole: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const c of [...at, whole.length]) {
    chunks.push(whole.subarray(from, c));
    from = c;
  }
  return chunks;
}

const piece = fc.constantFrom('data: {"a":1}', 'event: x', ': comment', 'data:', 'é✓', '\n', '\r', '\r\n', '\n\n', '\r\n\r\n', '\r\r');

describe('wholeEvents', () => {
  it('hands back every byte up to the last event end received, and holds the rest', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.array(fc.nat(400), { maxLength: 10 }), (pieces, cuts) => {
        const text = pieces.join('');
        const whole = Buffer.from(text, 'latin1');
        const ends = eventEnds(text);
        const events = wholeEvents(1 << 20);
        let received = 0;
        const out: Buffer[] = [];
        for (const chunk of cutAt(whole, cuts)) {
          received += chunk.length;
          const got = events.push(chunk);
          expect(got).toBeDefined();
          out.push(got!);
          const sent = out.reduce((n, b) => n + b.length, 0);
          expect(sent).toBe(Math.max(...[...ends].filter((e) => e <= received)));
        }
        expect(Buffer.concat([...out, events.rest()]).equals(whole)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['LF', 'data: 1\n\n', 'data: 2\n'],
    ['CRLF', 'data: 1\r\n\r\n', 'data: 2\r\n'],
    ['CR', 'data: 1\r\r', 'data: 2\r'],
  ])('returns a chunk that ends an event as it is, without a copy (%s)', (_name, event, open) => {
    const events = wholeEvents(1024);
    const chunk = Buffer.from(event + event);
    expect(events.push(chunk)).toBe(chunk);
    const part = events.push(Buffer.from(event + open));
    expect(part!.toString()).toBe(event);
    expect(events.rest().toString()).toBe(open);
  });

  it.each([
    ['one line without a line end', ['data: ', 'x'.repeat(600), 'y'.repeat(600)]],
    ['many data lines without a blank line', ['data: a\n', 'data: b\n'.repeat(100), 'data: c\n'.repeat(100)]],
    ['comment lines', [': ', 'k'.repeat(2000)]],
  ])('answers undefined once one unfinished event passes the limit: %s', (_name, chunks) => {
    const events = wholeEvents(1000);
    let result: Buffer | undefined = Buffer.alloc(0);
    for (const c of [ 'data: ok\n\n', ...chunks]) result = events.push(Buffer.from(c));
    expect(result).toBeUndefined();
  });

  it('lets events of any size through when each arrives ended', () => {
    const events = wholeEvents(10);
    const big = Buffer.from(`data: ${'x'.repeat(100)}\n\n`);
    expect(events.push(big)).toBe(big);
  });
});
