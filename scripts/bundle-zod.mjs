#!/usr/bin/env node
/**
 * Writes `dist/config/zod.js`, the module through which the built gateway reaches zod (`src/config/zod.ts`), as zod
 * in one file without its translated error messages: zod's index re-exports `z.locales`, 64 modules a process
 * would load and compile at every start, though the gateway never asks for a locale (its config messages are its
 * own, `src/config/zod-issues.ts`, and zod's English ones, which it sets itself, stay). One file rather than zod's
 * hundred modules, with its whitespace taken out, is smaller in memory too (docs/performance.md, "Memory at start").
 * `npm run build` runs it after tsc; the binary build bundles with `withoutZodLocales` too.
 *
 *   node scripts/bundle-zod.mjs [--out FILE]   (default: dist/config/zod.js)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_OUT = path.join(ROOT, 'dist/config/zod.js');
/** zod's own folder, where the imports this bundle changes come from. */
const ZOD_DIR = path.dirname(fileURLToPath(import.meta.resolve('zod/package.json')));
const STUB = 'zod-locales-left-out';

/** The one module of zod's locales its English messages come from: `z` sets it as its error map when loaded. */
const isEnglish = (file) => /[\\/]locales[\\/]en\.js$/.test(file);
const isLocale = (file) => /[\\/]locales[\\/][^\\/]+\.js$/.test(file);

/** An esbuild plugin: zod's `locales` index, imported by zod's own modules, becomes an empty module. */
export const withoutZodLocales = {
  name: 'zod-without-locales',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\.\/locales\/index\.c?js$/ }, (args) =>
      args.importer.startsWith(ZOD_DIR) ? { path: STUB, namespace: STUB } : undefined,
    );
    esbuild.onLoad({ filter: /.*/, namespace: STUB }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

/** Bundles `export { z } from 'zod'` into `out`; throws if a locale other than English made it in. */
export async function bundleZod(out = DEFAULT_OUT) {
  const { version } = JSON.parse(readFileSync(path.join(ZOD_DIR, 'package.json'), 'utf8'));
  const result = await build({
    stdin: { contents: "export { z } from 'zod';", resolveDir: ROOT, loader: 'js', sourcefile: 'src/config/zod.ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minifyWhitespace: true,
    // zod's license asks that its notice go with copies of it.
    banner: { js: `/* zod ${version}, MIT License, Copyright (c) 2025 Colin McDonnell. Bundled without its locales by scripts/bundle-zod.mjs. */` },
    plugins: [withoutZodLocales],
    metafile: true,
    sourcemap: true,
    outfile: out,
    logLevel: 'warning',
  });
  const inputs = Object.keys(result.metafile.inputs);
  const locales = inputs.filter((f) => isLocale(f) && !isEnglish(f));
  // A zod release that reaches its locales another way must be looked at, not shipped with them half left out.
  if (locales.length > 0 || !inputs.some((f) => f.startsWith(`${STUB}:`))) {
    throw new Error(`zod's locales were not left out of the bundle (${locales.length} locale modules in it)`);
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  await bundleZod(values.out ? path.resolve(values.out) : DEFAULT_OUT);
}
