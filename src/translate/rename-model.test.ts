import { readFileSync, readdirSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { outlineJson } from '../protocols/json-outline.js';
import { renameModel } from './rename-model.js';

const rename = (text: string, to: string) => {
  const raw = Buffer.from(text);
  return renameModel(raw, JSON.parse(text) as Record<string, unknown>, to).toString();
};

describe('renameModel', () => {
  it.each([
    ['plain', '{"model":"a","x":1}', '{"model":"b","x":1}'],
    ['spaces and newlines kept', '{ "x" : [1, {"model": "nested"}],\n  "model" :  "a" , "y":"model"}', '{ "x" : [1, {"model": "nested"}],\n  "model" :  "b" , "y":"model"}'],
    ['nested model keys ignored', '{"meta":{"model":"a"},"model":"a"}', '{"meta":{"model":"a"},"model":"b"}'],
    ['escaped quotes in strings', '{"s":"he said \\"model\\": \\"x\\"","model":"a"}', '{"s":"he said \\"model\\": \\"x\\"","model":"b"}'],
    ['a string value that looks like a key', '{"messages":["model","model"],"model":"a"}', '{"messages":["model","model"],"model":"b"}'],
    ['last duplicate wins, as in JSON.parse', '{"model":"z","model":"a"}', '{"model":"z","model":"b"}'],
    ['unicode around', '{"t":"héllo ✓","model":"a","u":"ü"}', '{"t":"héllo ✓","model":"b","u":"ü"}'],
    // The first key, and the only such bytes: found without a scan.
    ['the only model key, first, after whitespace', '\n {\n "model" : "a", "x":1}', '\n {\n "model" : "b", "x":1}'],
    ['first, with a duplicate of the same name later', '{"model":"a","x":1,"model":"a"}', '{"model":"a","x":1,"model":"b"}'],
    ['first, with a nested model key later', '{"model":"a","tools":[{"model":"t"}]}', '{"model":"b","tools":[{"model":"t"}]}'],
    ['a nested model key first', '{"meta":{"model":"a"},"model":"a"}', '{"meta":{"model":"a"},"model":"b"}'],
  ])('%s', (_name, input, expected) => {
    expect(rename(input, 'b')).toBe(expected);
  });

  it('returns the very same buffer when the name does not change', () => {
    const raw = Buffer.from('{"model":"a"}');
    expect(renameModel(raw, { model: 'a' }, 'a')).toBe(raw);
  });

  it('escapes the new name as JSON', () => {
    expect(JSON.parse(rename('{"model":"a"}', 'we"ird\\name'))).toEqual({ model: 'we"ird\\name' });
  });

  it('splices a name written with escapes, which reads as the same name', () => {
    expect(rename('{"model":"\\u0061\\/b","x":1}', 'c')).toBe('{"model":"c","x":1}');
  });

  it('falls back to re-serialising an escaped key', () => {
    expect(JSON.parse(rename('{"mod\\u0065l":"a","x":1}', 'b'))).toEqual({ model: 'b', x: 1 });
  });

  // The plain key's value is not the name JSON.parse read (the escaped duplicate after it won): splicing it would
  // leave that duplicate to name the model upstream.
  it.each([
    ['an escaped duplicate after it', '{"model":"a","mod\\u0065l":"zz"}'],
    ['an escaped duplicate after it, of the same length', '{"model":"a","x":1,"mod\\u0065l":"y"}'],
  ])('re-serialises a body whose plain model key lost to %s', (_, body) => {
    expect(JSON.parse(rename(body, 'b'))).toEqual({ ...(JSON.parse(body) as object), model: 'b' });
  });

  it('changes only the model in every real client fixture', () => {
    const dir = new URL('../../test/fixtures/clients/', import.meta.url);
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThanOrEqual(10);
    for (const file of files) {
      const fixture = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { body?: unknown; request?: { body?: unknown } };
      const body = (fixture.request?.body ?? fixture.body) as Record<string, unknown> | undefined;
      if (!body || typeof body.model !== 'string') continue;
      const raw = Buffer.from(JSON.stringify(body, null, 1));
      const out = renameModel(raw, body, 'renamed-model');
      expect(JSON.parse(out.toString()), file).toEqual({ ...body, model: 'renamed-model' });
      expect(out.length - raw.length, file).toBe('renamed-model'.length - body.model.length);
    }
  });
});

describe('renameModel: any body', () => {
  // Objects written key by key, so that `model` can come anywhere, twice, or nested, with any spacing.
  const space = fc.constantFrom('', ' ', '\n  ');
  const key = fc.oneof(fc.constant('model'), fc.constantFrom('x', 'messages', 'mod', 'model '), fc.string());
  const value = fc.oneof(fc.constantFrom('a', 'b'), fc.string(), fc.jsonValue(), fc.dictionary(fc.constantFrom('model', 'type'), fc.jsonValue()));
  const body = fc.tuple(fc.array(fc.tuple(key, value, space)), space).map(
    ([entries, s]) => `${s}{${entries.map(([k, v, sp]) => `${sp}${JSON.stringify(k)}${sp}:${sp}${JSON.stringify(v)}`).join(',')}}${s}`,
  );

  it('reads as the same body with the new model, as JSON.parse reads it (the last duplicate wins)', () => {
    fc.assert(
      fc.property(body, fc.string(), (text, to) => {
        const json = JSON.parse(text) as Record<string, unknown>;
        if (typeof json.model !== 'string' || json.model === to) return;
        const raw = Buffer.from(text);
        const out = renameModel(raw, json, to);
        expect(JSON.parse(out.toString())).toEqual({ ...json, model: to });
        // The same bytes with the place the request's parsing found (outlineJson's), as the gateway does.
        expect(renameModel(raw, json, to, outlineJson(raw, Infinity).model)).toEqual(out);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('renameModel: escapes next to quotes', () => {
  it.each([
    ['an escaped backslash before the closing quote', '{"a":"x\\\\","model":"a"}', '{"a":"x\\\\","model":"b"}'],
    ['escaped quotes and backslashes in a row', '{"a":"\\\\\\"model\\\\\\"","model":"a"}', '{"a":"\\\\\\"model\\\\\\"","model":"b"}'],
    ['a key made of backslashes', '{"\\\\":1,"model":"a"}', '{"\\\\":1,"model":"b"}'],
    ['an empty string before', '{"":"","model":"a"}', '{"":"","model":"b"}'],
  ])('%s', (_name, input, expected) => {
    const raw = Buffer.from(input);
    expect(JSON.parse(input)).toBeDefined();
    expect(renameModel(raw, JSON.parse(input) as Record<string, unknown>, 'b').toString()).toBe(expected);
  });
});
