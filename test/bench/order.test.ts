import { describe, expect, it } from 'vitest';

// The benchmark is plain JavaScript outside the TypeScript build; its order is imported as it runs.
const { balancedOrder } = (await import(new URL('../../bench/lib/order.mjs', import.meta.url).href)) as {
  balancedOrder: (n: number) => number[];
};

describe("the benchmark's balanced order of alternating streams", () => {
  it('visits a single target alone', () => {
    expect(balancedOrder(1)).toEqual([0]);
  });

  it.each([2, 3, 4, 5, 6])('with %i targets, each follows every other exactly once, never itself, across the seam too', (n) => {
    const order = balancedOrder(n);
    expect(order).toHaveLength(n * (n - 1));
    for (let t = 0; t < n; t++) expect(order.filter((x) => x === t)).toHaveLength(n - 1);
    const pairs = new Map<string, number>();
    // Repeated pass after pass, the last visit is followed by the first.
    order.forEach((x, i) => {
      const next = order[(i + 1) % order.length]!;
      expect(next).not.toBe(x);
      pairs.set(`${x}->${next}`, (pairs.get(`${x}->${next}`) ?? 0) + 1);
    });
    expect(pairs.size).toBe(n * (n - 1));
    expect([...pairs.values()].every((c) => c === 1)).toBe(true);
  });
});
