import { readFileSync } from 'node:fs';

// Replaced by a string literal when scripts/build-binary.mjs bundles the standalone binary (esbuild `define`):
// the binary has no package.json beside it, and `import.meta.url` is empty in its CommonJS bundle.
declare const MODEL_GATEWAY_VERSION: string | undefined;

/** The package version: the bundled one in the binary, else read once from package.json beside `src/` or `dist/`. */
export const VERSION: string = (() => {
  if (typeof MODEL_GATEWAY_VERSION === 'string') return MODEL_GATEWAY_VERSION;
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
})();
