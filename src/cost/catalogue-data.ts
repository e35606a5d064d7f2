/**
 * The compact price catalogue's JSON text: `catalogue.json` beside this module, which `npm run catalogue`
 * writes and `npm run build` copies to `dist/`. Read as a file, not imported as a module, so that once it
 * is parsed no copy of the text stays: a module's source is kept for as long as the process runs.
 */
import { readFileSync } from 'node:fs';

// Replaced by the file's text when scripts/build-binary.mjs bundles the standalone binary (esbuild `define`):
// the binary has no files beside it, and `import.meta.url` is empty in its CommonJS bundle.
declare const MODEL_GATEWAY_CATALOGUE: string | undefined;

export const CATALOGUE_FILE = 'catalogue.json';

export function catalogueJson(): string {
  if (typeof MODEL_GATEWAY_CATALOGUE === 'string') return MODEL_GATEWAY_CATALOGUE;
  return readFileSync(new URL(`./${CATALOGUE_FILE}`, import.meta.url), 'utf8');
}
