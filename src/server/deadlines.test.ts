import { describe, expect, it } from 'vitest';
import { deadline } from './deadlines.js';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    deadline(60, mark('d'));
    c.cancel();
    await wait(100);
    expect(fired).toEqual(['b', 'd']);
    expect(at.b).toBeGreaterThanOrEqual(39);
    expect(at.d).toBeGreaterThanOrEqual(59);
  });

  it('a lane whose first entry was cancelled still fires the next one on time', async () => {
    const fired: number[] = [];
    const start = performance.now();
    const first = deadline(30, () => fired.push(-1));
    await wait(10);
    deadline(30, () => fired.push(performance.now() - start));
    first.cancel();
    await wait(80);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeGreaterThanOrEqual(39);
  });

  it('cancelling after firing does nothing', async () => {
    let n = 0;
    const d = deadline(5, () => n++);
    await wait(30);
    d.cancel();
    expect(n).toBe(1);
    const e = deadline(5, () => n++);
    await wait(30);
    expect(n).toBe(2);
    e.cancel();
  });
});
