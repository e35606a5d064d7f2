import { describe, expect, it } from 'vitest';

// The benchmark is plain JavaScript outside the TypeScript build; its statistics are imported as it runs them.
const { ratioInterval } = (await import(new URL('../../bench/lib/stats.mjs', import.meta.url).href)) as {
  ratioInterval: (values: number[]) => { mean: number; low: number; high: number; n: number };
};

describe("the benchmark's interval for ratios of fresh pairs", () => {
  it('is the geometric mean with a 95 % interval from Student t on the logarithms', () => {
    // ln 1.1, ln 1.0, ln 0.9: mean -0.003352, sd 0.100377; t(2) = 4.303, so the half-width is 0.24937.
    const r = ratioInterval([1.1, 1.0, 0.9]);
    expect(r.n).toBe(3);
    expect(r.mean).toBeCloseTo(0.99665, 4);
    expect(r.low).toBeCloseTo(0.77669, 4);
    expect(r.high).toBeCloseTo(1.27891, 4);
  });

  it('collapses to the ratio when every pair agrees', () => {
    const r = ratioInterval([1.04, 1.04, 1.04, 1.04]);
    expect(r.mean).toBeCloseTo(1.04, 10);
    expect(r.low).toBeCloseTo(1.04, 10);
    expect(r.high).toBeCloseTo(1.04, 10);
  });

  it('narrows as the square root of the pairs: four times the pairs, about half the width', () => {
    const ten = [0.95, 1.0, 1.05, 1.1, 0.98, 1.02, 1.07, 0.93, 1.01, 1.04];
    const width = (r: { low: number; high: number }) => Math.log(r.high) - Math.log(r.low);
    const few = ratioInterval(ten);
    const many = ratioInterval([...ten, ...ten, ...ten, ...ten]);
    expect(many.mean).toBeCloseTo(few.mean, 10);
    // Half from the square root, times sqrt(36 / 39) for the sample deviation and 2.02 / 2.262 for t(39) against t(9): 0.43.
    expect(width(many) / width(few)).toBeCloseTo(0.429, 2);
  });

  it('leaves out what is no ratio, and gives no interval for one pair', () => {
    expect(ratioInterval([Number.NaN, 0, -1, Number.POSITIVE_INFINITY])).toMatchObject({ n: 0 });
    const one = ratioInterval([1.2, Number.NaN]);
    expect(one.n).toBe(1);
    expect(one.mean).toBeCloseTo(1.2, 10);
    expect(Number.isNaN(one.low) && Number.isNaN(one.high)).toBe(true);
  });
});
