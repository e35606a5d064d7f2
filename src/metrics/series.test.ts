/** The label tree a request finds its series in: one entry per list of values, bounded, values compared as given. */
import { describe, expect, it } from 'vitest';
import { type LabelValue, labelTree } from './series.js';

describe('labelTree', () => {
  it.each([
    ['the same values: made once', [['chat', 'openai', 200], ['chat', 'openai', 200]], 1],
    ['any value different: made apart', [['chat', 'openai', 200], ['chat', 'openai', 429], ['chat', 'anthropic', 200]], 3],
    ['a prefix of another list is another list', [['chat', 'openai', 200, ''], ['chat', 'openai', 200, 'dev']], 2],
    ['a number and its text are other values', [['chat', 200], ['chat', '200']], 2],
    ['values do not run into each other as joined text would', [['a', 'bc'], ['ab', 'c']], 2],
  ] as [string, LabelValue[][], number][])('%s', (_what, lists, made) => {
    const seen: string[] = [];
    const tree = labelTree((values: readonly LabelValue[]) => {
      seen.push(JSON.stringify(values));
      return { values: [...values] };
    });
    const found = lists.map((l) => tree.get(l, undefined));
    expect(seen).toHaveLength(made);
    expect(found.map((f) => f.values)).toEqual(lists);
  });

  it('past its limit it starts again: what it made is made anew, and it holds no more than the limit', () => {
    let made = 0;
    const tree = labelTree(() => ({ n: ++made }), 3);
    for (const model of ['a', 'b', 'c']) tree.get(['chat', model], undefined);
    expect(tree.get(['chat', 'a'], undefined).n).toBe(1);
    // A fourth list: the tree starts again with it, so 'a' is made again.
    expect(tree.get(['chat', 'd'], undefined).n).toBe(4);
    expect(tree.get(['chat', 'a'], undefined).n).toBe(5);
    tree.clear();
    expect(tree.get(['chat', 'd'], undefined).n).toBe(6);
  });
});
