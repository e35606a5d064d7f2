#!/usr/bin/env node
/**
 * Bundles the inspector page (src/inspector/page/main.ts and the stylesheet it imports)
 * into one script and one stylesheet with esbuild.
 *
 *   node scripts/build-inspector.mjs [--out DIR]   writes inspector.js and inspector.css (default: dist/inspector/assets)
 *
 * `bundleInspector()` returns them in memory instead: the gateway calls it when it
 * runs from the TypeScript sources, and the binary build embeds its result.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = path.join(ROOT, 'src/inspector/page/main.ts');
export const DEFAULT_OUT = path.join(ROOT, 'dist/inspector/assets');

/** @returns {Promise<{ js: string, css: string }>} */
export async function bundleInspector() {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    // Browsers from 2023 on: enough for optional chaining, `??=`, `structuredClone`, CSS nesting is not used.
    target: ['chrome115', 'firefox115', 'safari16'],
    minify: true,
    legalComments: 'none',
    write: false,
    outdir: 'out',
    entryNames: 'inspector',
    logLevel: 'warning',
  });
  const file = (ext) => {
    const found = result.outputFiles.find((f) => f.path.endsWith(ext));
    if (!found) throw new Error(`esbuild produced no ${ext} file for the inspector`);
    return found.text;
  };
  return { js: file('.js'), css: file('.css') };
}

async function main() {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const out = path.resolve(values.out ?? DEFAULT_OUT);
  const { js, css } = await bundleInspector();
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'inspector.js'), js);
  writeFileSync(path.join(out, 'inspector.css'), css);
  process.stderr.write(`inspector page: ${path.relative(process.cwd(), out) || out} (js ${(js.length / 1024).toFixed(0)} KB, css ${(css.length / 1024).toFixed(0)} KB)\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`build-inspector: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
