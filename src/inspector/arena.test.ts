import { describe, expect, it } from 'vitest';
import { createArena, SLAB_BYTES } from './arena.js';

describe("the history's ring of bytes", () => {
  it.each([
    ['within one slab', 1000, [10, 20, 30]],
    ['across slab boundaries and around the ring', 3 * SLAB_BYTES, [SLAB_BYTES - 5, 700_000, SLAB_BYTES + 3, 900_000, 400_000]],
    ['in a ring that ends within a slab', 2 * SLAB_BYTES + 12_345, [SLAB_BYTES - 5, 700_000, SLAB_BYTES + 3, 900_000, 400_000]],
  ])('%s: reads back what it holds, and nothing once written over', (_, size, lengths) => {
    const arena = createArena(size);
    const written = lengths.map((n, i) => {
      const data = Buffer.alloc(n, i + 1);
      data[0] = 200 + i;
      return { data, at: arena.write(data) };
    });
    let kept = 0;
    for (let i = written.length - 1; i >= 0; i--) {
      const { data, at } = written[i]!;
      kept += data.length;
      const back = arena.read(at, data.length);
      if (kept <= arena.size) expect(back?.equals(data)).toBe(true);
      else expect(back).toBeUndefined();
    }
    expect(arena.used).toBe(Math.min(arena.size, lengths.reduce((a, b) => a + b, 0)));
  });

  it.each([1000, SLAB_BYTES + 1, 3 * SLAB_BYTES - 7])('holds no more than the %i bytes it was given', (size) => {
    const arena = createArena(size);
    expect(arena.size).toBe(size);
    for (let i = 0; i < 8; i++) arena.write(Buffer.alloc(Math.ceil(size / 3), i));
    expect(arena.used).toBe(size);
  });

  it('refuses a body larger than the ring', () => {
    const arena = createArena(1000);
    expect(arena.write(Buffer.alloc(1001))).toBe(-1);
    expect(arena.used).toBe(0);
  });
});
