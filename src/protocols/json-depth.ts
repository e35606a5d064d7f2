/**
 * How deep a JSON text nests, found without parsing. Walkers over parsed bodies
 * (validation, translation, logging) recurse, so a body nested a hundred thousand
 * levels deep would overflow their stacks; such bodies are refused or kept as text.
 */
import { skipJsonString } from './json.js';

/** Deeper than any real request (a Codex turn nests about 17 levels). */
export const MAX_JSON_DEPTH = 256;

/** Whether valid JSON text nests arrays and objects deeper than `limit`. Strings are skipped with the native indexOf. */
export function nestedDeeperThan(json: Buffer, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === 0x22 /* " */) i = skipJsonString(json, i) - 1;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/** Nesting deeper than `limit` takes at least 2 × limit bytes, so shorter texts need no scan. */
export const mayNestDeeperThan = (bytes: number, limit: number): boolean => bytes > 2 * limit;
