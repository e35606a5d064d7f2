import { describe, expect, it } from 'vitest';
import { endsWithBlankLine } from './blank-line.js';

describe('endsWithBlankLine', () => {
  it.each([
    ['data: 1\n\n', true],
    ['data: 1\r\n\r\n', true],
    ['data: 1\r\r\n', true],
    ['data: 1\n\r\n', true],
    ['\n\n', true],
    ['\r\n\r\n', true],
    ['data: 1\n', false],
    ['data: 1\r\n', false],
    ['data: 1', false],
    // The first half of a CRLF: a decoder still waits for what follows it.
    ['data: 1\r\r', false],
    ['data: 1\n\r', false],
    // Only a line end: it may end a line the previous chunk left open.
    ['\n', false],
    ['\r\n', false],
    ['\r', false],
  ])('%j: %s', (text, ends) => {
    expect(endsWithBlankLine(Buffer.from(text))).toBe(ends);
  });
});
