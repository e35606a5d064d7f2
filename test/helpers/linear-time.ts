/**
 * Whether a step takes time in proportion to its input, judged by a ratio rather than a bound in
 * milliseconds: on an input GROWTH times larger it may take at most LIMIT times as long. Linear work
 * grows about 8x, somewhat more once the larger input's garbage takes longer to collect; quadratic work
 * grows 64x. A machine under load slows both sizes alike, where it would push a single timing past any
 * fixed bound. The sizes alternate, best of three each, so both meet the same
 * moments of the machine; inputs are made outside the timing, afresh for every run.
 */
import { expect } from 'vitest';

export const GROWTH = 8;
const LIMIT = 30;
/** Below this a timing is mostly the clock's and the JIT's noise: the small size counts as at least this long. */
const FLOOR_MS = 10;
const RUNS = 3;

interface Growth<R> {
  readonly smallMs: number;
  readonly largeMs: number;
  /** What `run` returned on the large input (its last run), for the test's other checks. */
  readonly large: R;
}

function timeGrowth<T, R>(make: (n: number) => T, run: (input: T) => R, n: number): Growth<R> {
  let smallMs = Number.POSITIVE_INFINITY;
  let largeMs = Number.POSITIVE_INFINITY;
  let large: R | undefined;
  for (let i = 0; i < RUNS; i++) {
    const small = make(n);
    let start = performance.now();
    run(small);
    smallMs = Math.min(smallMs, performance.now() - start);
    const big = make(n * GROWTH);
    start = performance.now();
    large = run(big);
    largeMs = Math.min(largeMs, performance.now() - start);
  }
  return { smallMs, largeMs, large: large as R };
}

/**
 * Runs `run` on `make(n)` and `make(GROWTH * n)` and expects linear growth (or none, for work that is
 * capped); returns the large run's result. Choose sizes at which quadratic work would take a second or
 * more on the large input: below LIMIT times the floor, a quadratic step would pass.
 */
export function expectLinear<T, R>(make: (n: number) => T, run: (input: T) => R, n: number): R {
  const g = timeGrowth(make, run, n);
  const ratio = g.largeMs / Math.max(g.smallMs, FLOOR_MS);
  expect(ratio, `${g.smallMs.toFixed(1)} ms for ${n}, ${g.largeMs.toFixed(1)} ms for ${n * GROWTH}`).toBeLessThan(LIMIT);
  return g.large;
}
