/**
 * The gateway reaches zod only through src/config/zod.ts, whose built output is zod bundled without its locales
 * (scripts/bundle-zod.mjs): a source file importing `zod` itself would load the whole package at start again, and
 * a second copy of zod besides. Nothing uses `z.locales`, which the bundle leaves empty.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GATE = 'src/config/zod.ts';

/** An import or re-export of `zod` or a path inside it, value or type. */
const ZOD_IMPORT = /^(?:import|export)\s[^;]*from\s+'zod(?:\/[^']*)?'/m;
const LOCALES = /\bz\.locales\b|from\s+'zod\/(?:v4\/)?locales/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.test-d.ts') ? [path] : [];
  });
}

describe('zod, through one module', () => {
  const files = sources(join(ROOT, 'src')).map((f) => ({ file: relative(ROOT, f), text: readFileSync(f, 'utf8') }));

  it(`no source file but ${GATE} imports zod`, () => {
    expect(files.filter((f) => f.file !== GATE && ZOD_IMPORT.test(f.text)).map((f) => f.file)).toEqual([]);
    expect(files.find((f) => f.file === GATE)?.text).toMatch(ZOD_IMPORT);
  });

  it('no source file uses zod\'s locales', () => {
    expect(files.filter((f) => LOCALES.test(f.text)).map((f) => f.file)).toEqual([]);
  });

  it.each([
    ["import { z } from 'zod';", true],
    ["import type { z } from 'zod';", true],
    ["import { z } from 'zod/mini';", true],
    ["export { z } from 'zod';", true],
    ["import { z } from '../config/zod.js';", false],
    ["import { zodish } from 'zodiac';", false],
  ])('tells an import of zod from the rest: %s', (line, found) => {
    expect(ZOD_IMPORT.test(line)).toBe(found);
  });
});
