import { describe, expect, it } from 'vitest';
import { bodyRate, burstFor, DEFAULT_BURST } from './body-rate.js';

/** Steps: `take` / `open` at a time (ms), and what each answers. */
type Step = readonly [at: number, op: 'take' | 'open', answer: boolean];

describe('how many requests a second history keeps whole', () => {
  it.each<[string, number, readonly Step[]]>([
    ['a burst of as many as it holds, then none', 3, [[0, 'take', true], [0, 'take', true], [0, 'take', true], [0, 'take', false], [0, 'open', false]]],
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
    // Bursts as large as the rate here, so that the cases stay short.
    const rate = bodyRate(perSecond, perSecond, () => t);
    const answers = steps.map(([at, op]) => {
      t = at;
      return op === 'take' ? rate.take() : rate.open();
    });
    expect(answers).toEqual(steps.map(([, , answer]) => answer));
  });

  it('refills at the rate whatever the burst: 20 at once, then one each fifth of a second at 5 a second', () => {
    let t = 0;
    const rate = bodyRate(5, 20, () => t);
    const burst = Array.from({ length: 21 }, () => rate.take());
    expect(burst.filter(Boolean).length).toBe(20);
    t = 150;
    expect(rate.take()).toBe(false);
    t = 201;
    expect([rate.take(), rate.take()]).toEqual([true, false]);
    t = 60_000;
    expect(Array.from({ length: 21 }, () => rate.take()).filter(Boolean).length).toBe(20);
  });

  it.each([
    [0, 0],
    [1, DEFAULT_BURST],
    [5, DEFAULT_BURST],
    [DEFAULT_BURST, DEFAULT_BURST],
    [50, 50],
    [2.5, DEFAULT_BURST],
  ])('at %s a second, bursts of %s unless told otherwise', (perSecond, burst) => {
    expect(burstFor(perSecond)).toBe(burst);
  });
});
