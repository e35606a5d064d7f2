import { describe, expect, it } from 'vitest';
import { bodyRate } from './body-rate.js';

/** Steps: `take` / `open` at a time (ms), and what each answers. */
type Step = readonly [at: number, op: 'take' | 'open', answer: boolean];

describe('how many requests a second history keeps whole', () => {
  it.each<[string, number, readonly Step[]]>([
    ['a burst of as many as the rate, then none', 3, [[0, 'take', true], [0, 'take', true], [0, 'take', true], [0, 'take', false], [0, 'open', false]]],
    [
      'refilled at the rate: one more a third of a second later at 3 a second',
      3,
      [[0, 'take', true], [0, 'take', true], [0, 'take', true], [300, 'take', false], [334, 'open', true], [334, 'take', true], [334, 'take', false]],
    ],
    ['never more than a burst, however long it was idle', 2, [[10_000, 'take', true], [10_000, 'take', true], [10_000, 'take', false]]],
    ['asking whether it is open takes nothing', 1, [[0, 'open', true], [0, 'open', true], [0, 'take', true], [0, 'open', false]]],
    ['0: rows only', 0, [[0, 'open', false], [0, 'take', false], [60_000, 'take', false]]],
    ['a clock that goes back adds nothing and takes nothing', 1, [[1000, 'take', true], [500, 'take', false], [1500, 'take', true]]],
  ])('%s', (_, perSecond, steps) => {
    let t = 0;
    const rate = bodyRate(perSecond, () => t);
    const answers = steps.map(([at, op]) => {
      t = at;
      return op === 'take' ? rate.take() : rate.open();
    });
    expect(answers).toEqual(steps.map(([, , answer]) => answer));
  });
});
