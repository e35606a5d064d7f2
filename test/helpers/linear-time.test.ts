/** The linear-time check itself: it passes linear and capped work, and catches quadratic work. */
import { describe, expect, it } from 'vitest';
import { expectLinear } from './linear-time.js';

/** Objects made and kept, as the translation steps it checks do, so the garbage collector's share is in it. */
const linear = (n: number) => Array.from({ length: n * 50 }, (_, i) => ({ i, s: `x${i}` })).length;
const capped = (n: number) => linear(Math.min(n, 2_000));
const quadratic = (n: number) => {
  let sum = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) sum += i ^ j;
  return sum;
};

describe('expectLinear', () => {
  it.each([
    ['linear', linear],
    ['capped', capped],
  ])('passes %s work', (_, run) => {
    expect(() => expectLinear((n) => n, run, 4_000)).not.toThrow();
  });

  it('fails quadratic work that takes a second or more on the large input', () => {
    expect(() => expectLinear((n) => n, quadratic, 4_000)).toThrow(/to be less than 30/);
  });
});
