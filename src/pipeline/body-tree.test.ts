import { describe, expect, it } from 'vitest';
import { bodyTree } from './body-tree.js';

describe('bodyTree', () => {
  const raw = Buffer.from('{"model":"m","messages":[{"role":"user","content":"héllo"}]}');

  it('gives the tree parsed on arrival until released', () => {
    const parsed = JSON.parse(raw.toString()) as Record<string, unknown>;
    const tree = bodyTree(raw, parsed);
    expect(tree.get()).toBe(parsed);
    expect(tree.get()).toBe(parsed);
  });

  it('after release, parses the bytes again into an equal tree, once', () => {
    const parsed = JSON.parse(raw.toString()) as Record<string, unknown>;
    const tree = bodyTree(raw, parsed);
    tree.release();
    const again = tree.get();
    expect(again).not.toBe(parsed);
    expect(again).toEqual(parsed);
    expect(tree.get()).toBe(again);
  });
});
