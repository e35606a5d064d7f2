/**
 * ioredis is loaded only by a process whose config asks for Redis (src/state/redis-client.ts): no
 * other source file may import it as a value, which would load it in every gateway at start.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** An import of ioredis that brings a value in: `import { Redis } from 'ioredis'`, not `import type …`. */
const VALUE_IMPORT = /^import\s+(?!type\b)[^;]*from\s+'ioredis'/m;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('ioredis on demand', () => {
  it('no source file imports ioredis as a value (src/state/redis-client.ts loads it with import())', () => {
    const importers = sources(join(ROOT, 'src'))
      .filter((f) => VALUE_IMPORT.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    expect(importers).toEqual([]);
  });

  it.each([
    ["import { Redis } from 'ioredis';", true],
    ["import Redis from 'ioredis';", true],
    ["import type { Redis } from 'ioredis';", false],
  ])('tells a value import from a type import: %s', (line, value) => {
    expect(VALUE_IMPORT.test(line)).toBe(value);
  });
});
