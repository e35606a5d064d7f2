import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasNoControlBytes, isSingleLineJson, isSingleLineJsonText } from './json.js';

/** What the checks must agree with: JSON.parse accepts it, and it has no control character to break a line. */
function reference(text: string): boolean {
  if (/[\u0000-\u001f]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const VALID = [
  '0',
  '-0',
  '12',
  '-3.25e-7',
  '1E+5',
  '1e5',
  'true',
  'false',
  'null',
  '""',
  '"a \\"quoted\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u00e9\\uD83D\\ude00"',
  '"\\ud800"',
  '{}',
  '[]',
  ' { "a" : [ 1 , 2 , { } , [ ] ] , "b" : null } ',
  '{"a":{"b":{"c":[[[[]]]]}}}',
  '{"a":1,"a":2}',
  '["é→…", "café"]',
  '{"__proto__":1}',
];
const INVALID = [
  '',
  ' ',
  '01',
  '1.',
  '.5',
  '-',
  '+1',
  '1e',
  '1e+',
  '0x10',
  'tru',
  'nul',
  'True',
  'NaN',
  'Infinity',
  '"abc',
  "'a'",
  '"\\x"',
  '"\\u12"',
  '"\\u12g4"',
  '"a\tb"',
  '"a\nb"',
  '{"a":1,}',
  '[1,]',
  '[1 2]',
  '{"a" 1}',
  '{a:1}',
  '{"a":1}}',
  '[1]]',
  '{"a":1',
  '[',
  '1 2',
  '{} {}',
  '{"a":1}\n',
  '{\n"a":1}',
  '\t{}',
  '{"a":\r1}',
  '\ufeff{}',
];

describe('isSingleLineJson / isSingleLineJsonText', () => {
  it.each(VALID)('accepts %j', (text) => {
    expect(isSingleLineJsonText(text)).toBe(true);
    expect(isSingleLineJson(Buffer.from(text))).toBe(true);
  });

  it.each(INVALID)('refuses %j', (text) => {
    expect(isSingleLineJsonText(text)).toBe(false);
    expect(isSingleLineJson(Buffer.from(text))).toBe(false);
  });

  it('refuses nesting deeper than asked', () => {
    const nested = (n: number) => `${'[{"a":'.repeat(n)}1${'}]'.repeat(n)}`;
    expect(isSingleLineJson(Buffer.from(nested(5)), 10)).toBe(true);
    expect(isSingleLineJson(Buffer.from(nested(5)), 9)).toBe(false);
    expect(isSingleLineJsonText(nested(5), 10)).toBe(true);
    expect(isSingleLineJsonText(nested(5), 9)).toBe(false);
    expect(isSingleLineJson(Buffer.from(nested(50_000)))).toBe(true);
  });

  it('refuses text with a lone surrogate, which UTF-8 cannot carry', () => {
    expect(isSingleLineJsonText('"\ud800"')).toBe(false);
    expect(isSingleLineJsonText('"\udc00 x"')).toBe(false);
    expect(isSingleLineJsonText('"😀"')).toBe(true);
  });

  it('agrees with JSON.parse on JSON values and on mangled JSON', () => {
    const json = fc.oneof(fc.json(), fc.json({ stringUnit: 'binary' }));
    const mangled = fc.tuple(json, fc.nat(), fc.nat(), fc.constantFrom('', ' ', ',', '"', '\\', '}', ']', '0', 'e', '-', '\u0001', 'é'));
    fc.assert(
      fc.property(fc.oneof(json.map((j) => [j, 0, 0, ''] as const), mangled), ([j, at, cut, insert]) => {
        const p = j.length === 0 ? 0 : at % j.length;
        const text = j.slice(0, p) + insert + j.slice(p + (cut % 3));
        const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
        expect(isSingleLineJsonText(text)).toBe(reference(text) && !lone);
        // As bytes, a lone surrogate is already U+FFFD.
        const bytes = Buffer.from(text);
        expect(isSingleLineJson(bytes)).toBe(reference(bytes.toString('utf8')));
      }),
      { numRuns: 3000 },
    );
  });

  it('checks a buffer at any offset of its memory', () => {
    const text = '{"k":"a long enough string value to span several words","n":[1,2,3]}';
    const backing = Buffer.alloc(text.length + 8, 0x20);
    for (let offset = 0; offset < 8; offset++) {
      backing.fill(0x20);
      backing.write(text, offset);
      expect(isSingleLineJson(backing.subarray(offset, offset + text.length))).toBe(true);
      backing[offset + 10] = 0x01; // a control character inside the string
      expect(isSingleLineJson(backing.subarray(offset, offset + text.length))).toBe(false);
    }
  });
});

describe('hasNoControlBytes', () => {
  it('finds a control byte at every position and offset', () => {
    for (let offset = 0; offset < 4; offset++) {
      for (let len = 0; len < 20; len++) {
        const backing = Buffer.alloc(len + 8, 0x61);
        const view = backing.subarray(offset, offset + len);
        expect(hasNoControlBytes(view)).toBe(true);
        for (let i = 0; i < len; i++) {
          for (const c of [0x00, 0x09, 0x0a, 0x1f]) {
            view[i] = c;
            expect(hasNoControlBytes(view)).toBe(false);
          }
          view[i] = 0x20;
          expect(hasNoControlBytes(view)).toBe(true);
          view[i] = 0xff;
          expect(hasNoControlBytes(view)).toBe(true);
          view[i] = 0x61;
        }
      }
    }
  });
});
