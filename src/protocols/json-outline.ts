/**
 * How deep a JSON text nests, where its root object's `model` value sits, and how many keys that
 * object is written with, found in one pass without parsing. Walkers over parsed bodies (validation, translation, logging) recurse,
 * so a body nested a hundred thousand levels deep would overflow their stacks; such bodies are
 * refused or kept as text. Passthrough splices a new model name into the bytes (rename-model.ts):
 * a request body long enough to need the depth check gets the model's place from the same pass,
 * so a large body is scanned once, not twice.
 */
import { isSpace, skipJsonString } from './json.js';

/** Deeper than any real request (a Codex turn nests about 17 levels). */
export const MAX_JSON_DEPTH = 256;

const QUOTE = 0x22;
export const MODEL_KEY = Buffer.from('"model"');

/** What one pass over valid JSON text finds. */
export interface JsonOutline {
  /** It nests arrays and objects deeper than the limit given (the pass stopped there). */
  readonly tooDeep: boolean;
  /** The root object's last `model` key with a string value, as that value's [start, end): the one JSON.parse keeps. */
  readonly model: [number, number] | undefined;
  /** How many keys the root object is written with, repeats included (0 when the root is not an object). */
  readonly keys: number;
}

/**
 * One pass over valid JSON text (it was parsed first, so the pass needs no error handling).
 * Strings are skipped with the native indexOf. A key written with escapes (`"mod\u0065l"`) is
 * not found: legal, but never sent by real clients.
 */
export function outlineJson(json: Buffer, limit: number): JsonOutline {
  let model: [number, number] | undefined;
  let keys = 0;
  const within = walkRootKeys(json, limit, (start, end) => {
    keys++;
    if (end - start === MODEL_KEY.length && holdsAt(json, start, MODEL_KEY)) {
      const value = stringValueAfter(json, end);
      if (value) {
        model = value;
        return value[1];
      }
    }
    return end;
  });
  return within ? { tooDeep: false, model, keys } : { tooDeep: true, model: undefined, keys };
}

/**
 * The first key the root object of valid JSON text is written with twice, compared as decoded
 * (`"mo\u0064el"` is `model`), or undefined. One pass, nested objects skipped: only the root's keys
 * decide what the gateway and the upstream each take the request to be.
 */
export function repeatedRootKey(json: Buffer): string | undefined {
  const seen = new Set<string>();
  let repeated: string | undefined;
  walkRootKeys(json, Infinity, (start, end) => {
    const key = JSON.parse(json.toString('utf8', start, end)) as string;
    if (!seen.has(key)) {
      seen.add(key);
      return end;
    }
    repeated = key;
    return json.length;
  });
  return repeated;
}

/**
 * The one scan of valid JSON text that both of the above make: hands each key of the root object
 * to `onKey` as its span [start, end), quotes included, and goes on from the index `onKey` answers
 * (`end`, past a value it read, or `json.length` to stop). False when the text nests deeper than
 * `limit` (the scan stopped there).
 */
function walkRootKeys(json: Buffer, limit: number, onKey: (start: number, end: number) => number): boolean {
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === QUOTE) {
      const end = skipJsonString(json, i);
      if (depth === 1 && expectKey) {
        expectKey = false;
        i = onKey(i, end) - 1;
      } else i = end - 1;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return false;
      if (depth === 1) expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
    } else if (c === 0x2c /* , */ && depth === 1) {
      expectKey = true;
    }
  }
  return true;
}

/** The span of the string after a key ending at `keyEnd` (past the colon), if the value is a string. */
export function stringValueAfter(json: Buffer, keyEnd: number): [number, number] | undefined {
  let v = keyEnd;
  while (isSpace(json[v])) v++;
  v++; // the colon
  while (isSpace(json[v])) v++;
  return json[v] === QUOTE ? [v, skipJsonString(json, v)] : undefined;
}

/**
 * Whether `buf` holds `bytes` from `at` on (the caller knows they fit). A loop rather than
 * `Buffer#compare`: for a key's or a model name's few bytes, entering C++ costs more than the
 * comparison.
 */
export function holdsAt(buf: Buffer, at: number, bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) if (buf[at + i] !== bytes[i]) return false;
  return true;
}

/** Whether valid JSON text nests arrays and objects deeper than `limit`. */
export function nestedDeeperThan(json: Buffer, limit: number): boolean {
  return outlineJson(json, limit).tooDeep;
}

/** Nesting deeper than `limit` takes at least 2 × limit bytes, so shorter texts need no scan. */
export const mayNestDeeperThan = (bytes: number, limit: number): boolean => bytes > 2 * limit;
