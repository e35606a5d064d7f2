/**
 * Every SSE frame the gateway writes comes from format.ts: each kind's exact bytes, and that a
 * reader (our decoder, which follows the WHATWG rules) gets back exactly one event with the data
 * given, whatever line breaks or characters the data holds.
 */
import { describe, expect, it } from 'vitest';
import { commentFrame, dataFrame, DONE_FRAME, eventFrame } from './format.js';
import { createSseDecoder, type SseEvent } from './parse.js';

const read = (frames: string): SseEvent[] => {
  const d = createSseDecoder();
  return [...d.push(frames), ...d.end()];
};

describe('frame bytes', () => {
  it.each([
    ['named event, JSON', eventFrame('message_stop', { type: 'message_stop' }), 'event: message_stop\ndata: {"type":"message_stop"}\n\n'],
    ['named event, nested JSON', eventFrame('error', { type: 'error', error: { message: 'a' } }), 'event: error\ndata: {"type":"error","error":{"message":"a"}}\n\n'],
    ['data only, JSON', dataFrame({ id: 'c', choices: [] }), 'data: {"id":"c","choices":[]}\n\n'],
    ['data only, array', dataFrame([1, 2]), 'data: [1,2]\n\n'],
    ['the [DONE] terminator', DONE_FRAME, 'data: [DONE]\n\n'],
    ['comment', commentFrame('ping'), ': ping\n\n'],
  ])('%s', (_, frame, bytes) => {
    expect(frame).toBe(bytes);
  });
});

describe('JSON data is one line, whatever its strings hold', () => {
  it.each([
    ['LF', 'a\nb'],
    ['CRLF', 'a\r\nb'],
    ['CR', 'a\rb'],
    ['a blank line', 'a\n\nevent: forged\ndata: {}\n\n'],
    ['emoji and CJK', 'héllo 👋 你好'],
    ['U+2028 and U+2029 (not SSE line ends)', 'a\u2028b\u2029c'],
    ['a lone surrogate', 'a\ud800b'],
    ['NUL and controls', 'a\u0000b\u001bc'],
  ])('%s', (_, text) => {
    const payload = { type: 'x', text };
    for (const frame of [eventFrame('x', payload), dataFrame(payload)]) {
      expect(frame.slice(0, -2)).not.toMatch(/[\r\n]{2}/);
      const events = read(frame);
      expect(events).toHaveLength(1);
      expect(events.map((e) => JSON.parse(e.data))).toEqual([payload]);
    }
    expect(read(eventFrame('x', payload)).map((e) => e.event)).toEqual(['x']);
    expect(read(dataFrame(payload)).map((e) => e.event)).toEqual([undefined]);
  });
});

describe('comments', () => {
  it.each([
    ['one line', 'ping', ': ping\n\n'],
    ['several lines', 'a\nb\r\nc', ': a\n: b\n: c\n\n'],
    ['a forged event inside', 'x\n\ndata: forged', ': x\n: \n: data: forged\n\n'],
  ])('%s: readers see no event', (_, text, bytes) => {
    expect(commentFrame(text)).toBe(bytes);
    expect(read(commentFrame(text) + dataFrame({ after: true }))).toEqual([{ event: undefined, data: '{"after":true}' }]);
  });
});

describe('event names', () => {
  it.each(['a\nb', 'a\rb', 'a\r\nb', 'error\n\ndata: {}'])('%j is refused', (name) => {
    expect(() => eventFrame(name, {})).toThrow(/line break/);
  });
});
