#!/usr/bin/env node
/**
 * Copies the data files that compiled modules read from beside themselves from `src/` to `dist/` (tsc
 * copies only what it compiles). `npm run build` runs it.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Paths under src/. */
const DATA_FILES = ['cost/catalogue.json'];

for (const file of DATA_FILES) {
  const to = path.join(ROOT, 'dist', file);
  mkdirSync(path.dirname(to), { recursive: true });
  copyFileSync(path.join(ROOT, 'src', file), to);
}
