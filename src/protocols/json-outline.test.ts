import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findModelValue } from '../translate/rename-model.js';
import { MAX_JSON_DEPTH, nestedDeeperThan, outlineJson, repeatedRootKey } from './json-outline.js';

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;
const valueAt = (text: string) => {
  const at = outlineJson(Buffer.from(text), MAX_JSON_DEPTH).model;
  return at && Buffer.from(text).subarray(at[0], at[1]).toString();
};

/** Objects with keys that repeat (often `model`), and values that nest objects with the same keys. */
const body = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom('model', 'x'), fc.string()),
      fc.oneof(fc.constantFrom('a', 'b'), fc.jsonValue(), fc.dictionary(fc.constantFrom('model', 'x'), fc.jsonValue())),
    ),
  )
  .map((entries) => ({ entries, text: `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}` }));

describe('outlineJson', () => {
  it.each([
    ['flat', '{"a":1}', 1, false],
    ['at the limit', nested(4), 4, false],
    ['one past the limit', nested(5), 4, true],
    ['brackets inside strings do not count', `{"s":"${'['.repeat(50)}"}`, 2, false],
    ['objects and arrays alike', '{"a":[{"b":[1]}]}', 3, true],
  ])('depth: %s', (_name, text, limit, deeper) => {
    expect(outlineJson(Buffer.from(text), limit).tooDeep).toBe(deeper);
    expect(nestedDeeperThan(Buffer.from(text), limit)).toBe(deeper);
  });

  it.each([
    ['the root key', '{"model":"a","x":1}', '"a"'],
    ['the last of duplicates, as JSON.parse', '{"model":"a","x":{"model":"n"},"model":"z"}', '"z"'],
    ['not a nested one', '{"x":{"model":"n"}}', undefined],
    ['not a string value', '{"model":5}', undefined],
    ['not a string that reads "model"', '{"x":"model","y":["model"]}', undefined],
    ['with spaces around the colon', '{ "model" :\n "a" }', '"a"'],
  ])('model: %s', (_name, text, expected) => {
    expect(valueAt(text)).toBe(expected);
  });

  it('finds what findModelValue finds, in any body', () => {
    fc.assert(
      fc.property(body, ({ text }) => {
        const raw = Buffer.from(text);
        expect(outlineJson(raw, Infinity).model).toEqual(findModelValue(raw));
      }),
      { numRuns: 1000 },
    );
  });

  it('counts the root keys as written, repeats included', () => {
    fc.assert(
      fc.property(body, ({ text, entries }) => {
        expect(outlineJson(Buffer.from(text), Infinity).keys).toBe(entries.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe('repeatedRootKey', () => {
  it.each([
    ['none', '{"model":"a","x":{"model":"b"}}', undefined],
    ['the first repeated, not the first written', '{"a":1,"b":2,"b":3,"a":4}', 'b'],
    ['compared as decoded', '{"model":"a","mo\\u0064el":"b"}', 'model'],
    ['with spaces about', '{ "tools" : [] ,\n "tools":[] }', 'tools'],
    ['not an object', '["a","a"]', undefined],
    ['a string value that reads like a key', '{"a":"b","b":"a"}', undefined],
  ])('%s', (_name, text, key) => {
    expect(repeatedRootKey(Buffer.from(text))).toBe(key);
  });

  it('names the first key written again, in any body', () => {
    fc.assert(
      fc.property(body, ({ text, entries }) => {
        const keys = entries.map(([k]) => k);
        const expected = keys.find((k, i) => keys.indexOf(k) < i);
        expect(repeatedRootKey(Buffer.from(text))).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});
