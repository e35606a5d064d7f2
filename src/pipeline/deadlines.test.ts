import { describe, expect, it } from 'vitest';
import { deadline } from './deadlines.js';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sets a deadline that runs `then` and resolves the promise it returns when it fires. */
const firing = (ms: number, then: () => void = () => undefined) =>
  new Promise<void>((resolve) =>
    deadline(ms, () => {
      then();
      resolve();
    }),
  );

describe('deadlines', () => {
  it('fire after their time, in order, unless cancelled', async () => {
    const fired: string[] = [];
    const start = performance.now();
    const at: Record<string, number> = {};
    const mark = (name: string) => () => {
      fired.push(name);
      at[name] = performance.now() - start;
    };
    const a = deadline(40, mark('a'));
    deadline(40, mark('b'));
    const c = deadline(20, mark('c'));
    a.cancel();
    a.cancel();
    const d = firing(60, mark('d'));
    c.cancel();
    // The last to fire: every other one was due before it.
    await d;
    expect(fired).toEqual(['b', 'd']);
    expect(at.b).toBeGreaterThanOrEqual(39);
    expect(at.d).toBeGreaterThanOrEqual(59);
  });

  it('a lane whose first entry was cancelled still fires the next one on time', async () => {
    const fired: number[] = [];
    const start = performance.now();
    const first = deadline(30, () => fired.push(-1));
    // The next entry of the same lane is set later than the first, so it is due after it.
    await wait(10);
    const second = firing(30, () => fired.push(performance.now() - start));
    first.cancel();
    await second;
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeGreaterThanOrEqual(39);
  });

  it('gives each its own argument and its duration, several due at once included', async () => {
    const fired: [string, number][] = [];
    const fire = (name: string, ms: number) => fired.push([name, ms]);
    deadline(15, fire, 'first');
    deadline(15, fire, 'second');
    await firing(25);
    expect(fired).toEqual([
      ['first', 15],
      ['second', 15],
    ]);
  });

  it('cancelling after firing does nothing', async () => {
    let n = 0;
    const set = () => {
      let handle!: ReturnType<typeof deadline>;
      const fired = new Promise<void>((resolve) => {
        handle = deadline(5, () => {
          n++;
          resolve();
        });
      });
      return { handle, fired };
    };
    const d = set();
    await d.fired;
    d.handle.cancel();
    expect(n).toBe(1);
    // The lane still works after it.
    const e = set();
    await e.fired;
    expect(n).toBe(2);
    e.handle.cancel();
    expect(n).toBe(2);
  });
});
