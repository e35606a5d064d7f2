import { describe, expect, it } from 'vitest';
import { diffJson, isVolatileKey } from './json-diff.js';

describe('diffJson', () => {
  it.each([
    ['equal values', { a: 1, b: [1, { c: 'x' }] }, { a: 1, b: [1, { c: 'x' }] }, []],
    ['a changed leaf', { a: { b: 'x' } }, { a: { b: 'y' } }, [{ path: 'a.b', kind: 'changed', before: 'x', after: 'y' }]],
    ['an added key', { a: 1 }, { a: 1, b: 2 }, [{ path: 'b', kind: 'added', after: 2 }]],
    ['a removed key', { a: 1, b: 2 }, { a: 1 }, [{ path: 'b', kind: 'removed', before: 2 }]],
    ['a longer array', { l: [1] }, { l: [1, 2] }, [{ path: 'l[1]', kind: 'added', after: 2 }]],
    ['a shorter array', { l: [1, 2] }, { l: [1] }, [{ path: 'l[1]', kind: 'removed', before: 2 }]],
    ['a changed type', { a: [1] }, { a: { 0: 1 } }, [{ path: 'a', kind: 'changed', before: [1], after: { 0: 1 } }]],
    ['null against a value', { a: null }, { a: 0 }, [{ path: 'a', kind: 'changed', before: null, after: 0 }]],
    ['different roots', 'x', 'y', [{ path: '', kind: 'changed', before: 'x', after: 'y' }]],
    ['a key that is not an identifier', { 'a-b': 1 }, { 'a-b': 2 }, [{ path: '["a-b"]', kind: 'changed', before: 1, after: 2 }]],
  ])('%s', (_name, a, b, expected) => {
    expect(diffJson(a, b)).toEqual(expected);
  });

  it('leaves out ids, timestamps and usage, at any depth', () => {
    const a = { id: 'msg_1', created: 1, usage: { input_tokens: 1 }, content: [{ type: 'tool_use', id: 'toolu_1', name: 'f' }], call_id: 'c1' };
    const b = { id: 'msg_2', created: 2, usage: { input_tokens: 9 }, content: [{ type: 'tool_use', id: 'toolu_2', name: 'f' }] };
    expect(diffJson(a, b)).toEqual([]);
  });

  it('compares everything when told to ignore nothing', () => {
    expect(diffJson({ id: 1 }, { id: 2 }, () => false)).toEqual([{ path: 'id', kind: 'changed', before: 1, after: 2 }]);
  });
});

describe('isVolatileKey', () => {
  it.each([
    ['id', true],
    ['created_at', true],
    ['system_fingerprint', true],
    ['tool_use_id', true],
    ['usage', true],
    ['model', false],
    ['content', false],
    ['idle', false],
  ])('%s → %s', (key, volatile) => {
    expect(isVolatileKey(key)).toBe(volatile);
  });
});
