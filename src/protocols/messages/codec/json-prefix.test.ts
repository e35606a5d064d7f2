/** The JSON-object prefix check behind streamed tool arguments. */
import { describe, expect, it } from 'vitest';
import { createJsonObjectPrefix } from './json-prefix.js';

const VALID = [
  '{}',
  ' { } ',
  '{"a":1}',
  '{"city": "Paris", "unit": "c"}',
  '{"n":-0.5e+10,"m":0,"k":12.25,"z":1E3}',
  '{"t":true,"f":false,"x":null,"arr":[],"nested":[1,[2,{"b":[]}],"s"]}',
  '{"esc":"q\\"uote \\\\ back \\/ \\b\\f\\n\\r\\t \\u00e9 \\uD83D\\uDC4B","emoji":"👋 — ok"}',
  '{\n  "multi": {\n    "line": [ 1 , 2 ]\n  }\n}\n',
];

describe('valid objects', () => {
  it.each(VALID)('%j: every prefix is accepted and can be closed', (text) => {
    for (let i = 0; i <= text.length; i++) {
      const p = createJsonObjectPrefix();
      expect(p.push(text.slice(0, i))).toBe(i);
      expect(p.broken).toBe(false);
      const closed = text.slice(0, i) + p.completion();
      const parsed: unknown = JSON.parse(closed);
      expect(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)).toBe(true);
    }
  });

  it.each(VALID)('%j: complete, fed in pieces', (text) => {
    const p = createJsonObjectPrefix();
    for (const piece of text.match(/.{1,3}/gsu) ?? []) expect(p.push(piece)).toBe(piece.length);
    expect(p.complete).toBe(true);
    expect(p.completion()).toBe('');
  });

  it('empty until the first non-space', () => {
    const p = createJsonObjectPrefix();
    p.push('  \n');
    expect(p.empty).toBe(true);
    expect(p.completion()).toBe('{}');
    p.push('{');
    expect(p.empty).toBe(false);
    expect(p.complete).toBe(false);
  });
});

describe('invalid text', () => {
  it.each<[string, number]>([
    ['[1,2]', 0],
    ['ls -la', 0],
    ["{'a': 1}", 1],
    ['{"a" 1}', 5],
    ['{"a":01}', 6],
    ['{"a":1,}', 7],
    ['{"a":tru e}', 8],
    ['{"a":"x\\q"}', 8],
    ['{"a":"\\u12G4"}', 10],
    ['{"a":1}}', 7],
    ['{"a":1} {"b":2}', 8],
    ['{"a":"line\nbreak"}', 10],
    ['{"a":-}', 6],
    ['{"a":1.e5}', 7],
  ])('%j breaks at %d', (text, at) => {
    const p = createJsonObjectPrefix();
    expect(p.push(text)).toBe(at);
    expect(p.broken).toBe(true);
    expect(p.push('{}')).toBe(0);
    // what was accepted can still be closed into an object
    const parsed: unknown = JSON.parse(text.slice(0, at) + p.completion());
    expect(typeof parsed).toBe('object');
  });

  it.each<[string, string]>([
    ['{"a": "hel', '"}'],
    ['{"a', '":null}'],
    ['{"a":', 'null}'],
    ['{"a":1,', '"":null}'],
    ['{"a":[1,', 'null]}'],
    ['{"a":[', ']}'],
    ['{"a":tr', 'ue}'],
    ['{"a":-', '0}'],
    ['{"a":2.', '0}'],
    ['{"a":"x\\', '\\"}'],
    ['{"a":"\\u00', '00"}'],
    ['{"a":{"b":[{"c":"d', '"}]}}'],
  ])('%j closes with %j', (text, completion) => {
    const p = createJsonObjectPrefix();
    p.push(text);
    expect(p.completion()).toBe(completion);
  });
});
