import { describe, expect, it } from 'vitest';
import { createSseDecoder, type SseEvent } from './parse.js';

const decodeAll = (chunks: (string | Buffer)[]): SseEvent[] => {
  const d = createSseDecoder();
  return [...chunks.flatMap((c) => d.push(c)), ...d.end()];
};

describe('createSseDecoder', () => {
  const stream =
    'event: message_start\r\ndata: {"a":1}\r\n\r\n: keepalive comment\n\nevent: ping\ndata: {"type":"ping"}\n\ndata: line1\ndata: line2\n\ndata: héllo ✓\r\rdata: [DONE]\n\n';
  const expected: SseEvent[] = [
    { event: 'message_start', data: '{"a":1}' },
    { event: 'ping', data: '{"type":"ping"}' },
    { event: undefined, data: 'line1\nline2' },
    { event: undefined, data: 'héllo ✓' },
    { event: undefined, data: '[DONE]' },
  ];

  it('decodes a whole stream with mixed line ends and comments', () => {
    expect(decodeAll([stream])).toEqual(expected);
  });

  it('gives the same events when split at every byte offset', () => {
    const bytes = Buffer.from(stream);
    for (let i = 1; i < bytes.length; i++) {
      expect(decodeAll([bytes.subarray(0, i), bytes.subarray(i)]), `split at ${i}`).toEqual(expected);
    }
  });

  it('gives the same events fed one byte at a time', () => {
    const bytes = Buffer.from(stream);
    expect(decodeAll([...bytes].map((b) => Buffer.from([b])))).toEqual(expected);
  });

  it('flushes a final event that lacks its blank line', () => {
    expect(decodeAll(['event: x\ndata: 1'])).toEqual([{ event: 'x', data: '1' }]);
  });

  it('treats CR CR as an event boundary even when split', () => {
    expect(decodeAll(['data: a\r', '\rdata: b\r', '\n\r\n'])).toEqual([
      { event: undefined, data: 'a' },
      { event: undefined, data: 'b' },
    ]);
  });
});
