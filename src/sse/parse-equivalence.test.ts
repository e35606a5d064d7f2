/**
 * The decoder finds line ends with indexOf; this checks it against the char-by-char
 * decoder it replaced (kept here as the reference) on random streams, chunked at random.
 */
import { StringDecoder } from 'node:string_decoder';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSseDecoder, type SseDecoder, type SseEvent } from './parse.js';

function referenceDecoder(): SseDecoder {
  const text = new StringDecoder('utf8');
  let buffer = '';
  let pendingCr = false;
  let event: string | undefined;
  let data: string[] = [];
  const flushEvent = (out: SseEvent[]) => {
    if (data.length > 0 || event !== undefined) {
      if (data.length > 0) out.push({ event, data: data.join('\n') });
      event = undefined;
      data = [];
    }
  };
  const line = (l: string, out: SseEvent[]) => {
    if (l === '') return flushEvent(out);
    if (l.charCodeAt(0) === 58) return;
    const colon = l.indexOf(':');
    const field = colon === -1 ? l : l.slice(0, colon);
    let value = colon === -1 ? '' : l.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  };
  const feed = (s: string, out: SseEvent[]) => {
    buffer += s;
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer.charCodeAt(i);
      if (c === 10) {
        if (pendingCr && i === start) {
          pendingCr = false;
          start = i + 1;
          continue;
        }
        line(buffer.slice(start, i), out);
        start = i + 1;
      } else if (c === 13) {
        line(buffer.slice(start, i), out);
        pendingCr = i + 1 === buffer.length;
        if (buffer.charCodeAt(i + 1) === 10) i++;
        start = i + 1;
        continue;
      }
      pendingCr = false;
    }
    buffer = buffer.slice(start);
  };
  return {
    push(chunk) {
      const out: SseEvent[] = [];
      feed(typeof chunk === 'string' ? chunk : text.write(chunk), out);
      return out;
    },
    end() {
      const out: SseEvent[] = [];
      feed(text.end(), out);
      if (buffer !== '') line(buffer, out);
      buffer = '';
      flushEvent(out);
      return out;
    },
  };
}

/** Events per push, so the two must agree on when each event completes, not only on the list. */
function run(decoder: SseDecoder, chunks: readonly (string | Buffer)[]): SseEvent[][] {
  return [...chunks.map((c) => decoder.push(c)), decoder.end()];
}

const piece = fc.constantFrom('data', 'event', ':', ' ', 'x', 'é', '✓', '\n', '\r', '\r\n', '\n\n', '\r\r', 'data: {"a":1}', 'event: ping', 'id: 7', ': c');

describe('createSseDecoder (indexOf line ends)', () => {
  it('decodes exactly as the char-by-char decoder, for any text and any chunking', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (pieces, cuts, asBytes) => {
        const whole = Buffer.from(pieces.join(''));
        const at = [...new Set(cuts.map((c) => (whole.length === 0 ? 0 : c % (whole.length + 1))))].sort((a, b) => a - b);
        const chunks: (string | Buffer)[] = [];
        let from = 0;
        for (const c of [...at, whole.length]) {
          const part = whole.subarray(from, c);
          // As bytes a cut may split a UTF-8 character; as text it may not, so cut the decoded text.
          chunks.push(asBytes ? part : part.toString('utf8'));
          from = c;
        }
        if (!asBytes && chunks.join('') !== whole.toString('utf8')) return; // a cut inside a character
        expect(run(createSseDecoder(), chunks)).toEqual(run(referenceDecoder(), chunks));
      }),
      { numRuns: 5000 },
    );
  });

  it('decodes a long line that arrives in many chunks', () => {
    const line = `data: ${'x'.repeat(5000)}\n\n`;
    const chunks = line.match(/[\s\S]{1,7}/g) ?? [];
    expect(run(createSseDecoder(), chunks)).toEqual(run(referenceDecoder(), chunks));
  });
});
