/** Narrowing helpers for wire JSON, which arrives as `unknown`. */

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
/** The objects of an array, skipping anything else. */
export const objects = (v: unknown): Json[] => list(v).filter(isObject);

/** JSON text → value, or undefined when it does not parse. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** JSON text → object, or undefined when it is not JSON or not an object. */
export function parseObject(text: string): Json | undefined {
  const value = parseJson(text);
  return isObject(value) ? value : undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Index just past the JSON string starting at `start` (a quote), found with the native `indexOf`. */
export function skipJsonString(buf: Buffer, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = buf.indexOf(QUOTE, from);
    if (quote === -1) return buf.length;
    let backslashes = 0;
    for (let b = quote - 1; b > start && buf[b] === BACKSLASH; b--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** JSON's whitespace, as a byte. */
export const isSpace = (c: number | undefined) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const USAGE_KEY = Buffer.from('"usage"');

/**
 * The last `"usage": {…}` object in a JSON body, parsed alone: the log needs only usage, and
 * every provider puts it after the content, so a 100 KB answer need not be parsed whole.
 * Undefined when the bytes do not look like that (the caller then parses the whole body).
 */
export function lastUsageObject(buf: Buffer): Json | undefined {
  const at = buf.lastIndexOf(USAGE_KEY);
  if (at === -1) return undefined;
  let i = at + 7;
  while (isSpace(buf[i])) i++;
  if (buf[i] !== 0x3a /* : */) return undefined;
  i++;
  while (isSpace(buf[i])) i++;
  if (buf[i] !== 0x7b /* { */) return undefined;
  const start = i;
  let depth = 0;
  for (; i < buf.length; i++) {
    const c = buf[i];
    if (c === QUOTE) i = skipJsonString(buf, i) - 1;
    else if (c === 0x7b) depth++;
    else if (c === 0x7d && --depth === 0) return parseObject(buf.toString('utf8', start, i + 1));
  }
  return undefined;
}

/**
 * Whether no byte is a control character (0x00–0x1f, so no tab, CR or LF either). Four bytes at a
 * time, without branches ("hasless" from Bit Twiddling Hacks): it runs over every byte of a body.
 */
export function hasNoControlBytes(buf: Uint8Array): boolean {
  const base = buf.byteOffset;
  const end = base + buf.length;
  const firstWord = (base + 3) >>> 2;
  const endWord = end >>> 2;
  if (endWord <= firstWord) return controlBytes(buf, 0, buf.length) === 0;
  // Bytes before the first aligned word and after the last one, then the words.
  const head = (firstWord << 2) - base;
  const tail = (endWord << 2) - base;
  if (controlBytes(buf, 0, head) !== 0 || controlBytes(buf, tail, buf.length) !== 0) return false;
  return (controlBits(new Int32Array(buf.buffer, firstWord << 2, endWord - firstWord)) & 0x80808080) === 0;
}

/**
 * The "hasless" bits of every word OR-ed together. The loops live in functions of their own with
 * nothing after them: V8 compiles a long loop while it runs (OSR), and code after the loop that had
 * not run yet made that compiled code bail out on every call.
 */
function controlBits(words: Int32Array): number {
  let acc = 0;
  for (let w = 0; w < words.length; w++) {
    const x = words[w]!;
    acc |= ((x - 0x20202020) | 0) & ~x;
  }
  return acc;
}

/** How many bytes from `from` to `to` are control characters (a few bytes at the ends of a buffer). */
function controlBytes(buf: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (buf[i]! < 0x20) n++;
  return n;
}

const isHex = (c: number | undefined) => c !== undefined && ((c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66));
const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;

/**
 * Whether `buf` is one JSON text as `JSON.parse` accepts it, nested at most `maxDepth` deep, given
 * that it holds no control byte (checked beforehand). One function with its state in locals, so V8
 * compiles it into one tight loop over the bytes; long strings are skipped with the native
 * `indexOf`. JSON's syntax is all ASCII and bytes >= 0x80 may only appear inside strings, so with
 * valid UTF-8 the verdict is the same as for the decoded text.
 */
function isJsonBytes(buf: Buffer, maxDepth: number): boolean {
  const n = buf.length;
  /** Open containers: true for an object, false for an array. */
  const open: boolean[] = [];
  /** Next backslash at or after the current string position; -1 when none is left, -2 before the first search. */
  let backslash = -2;
  let i = 0;
  let c = 0;
  /** Where the walk is: a value is due, a key is due (after `{` or `,` in an object), or a value just ended. */
  let expect = VALUE;
  for (;;) {
    while (i < n && buf[i] === 0x20) i++;
    c = i < n ? buf[i]! : -1;
    if (expect === AFTER) {
      if (open.length === 0) return i === n;
      const object = open[open.length - 1];
      if (c === 0x2c /* , */) {
        i++;
        expect = object ? KEY : VALUE;
      } else if (c === (object ? 0x7d : 0x5d)) {
        open.pop();
        i++;
      } else {
        return false;
      }
      continue;
    }
    if (expect === KEY && c !== QUOTE) return false;
    if (c === QUOTE) {
      // A string: short ones are walked, longer ones searched for their closing quote.
      i++;
      let end = -1;
      for (const near = Math.min(i + 32, n); i < near; i++) {
        const d = buf[i];
        if (d === QUOTE) {
          end = i + 1;
          break;
        }
        if (d === BACKSLASH) break;
      }
      let quote = -1;
      while (end === -1) {
        // The quote found last time still stands when only escapes before it were passed.
        if (quote < i) {
          quote = buf.indexOf(QUOTE, i);
          if (quote === -1) return false;
        }
        if (backslash !== -1 && backslash < i) backslash = buf.indexOf(BACKSLASH, i);
        if (backslash === -1 || backslash > quote) {
          end = quote + 1;
          break;
        }
        const e = buf[backslash + 1];
        if (e === 0x75 /* u */) {
          if (!(isHex(buf[backslash + 2]) && isHex(buf[backslash + 3]) && isHex(buf[backslash + 4]) && isHex(buf[backslash + 5]))) return false;
          i = backslash + 6;
        } else if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
          i = backslash + 2;
        } else {
          return false;
        }
      }
      i = end;
      if (expect === KEY) {
        while (i < n && buf[i] === 0x20) i++;
        if (buf[i] !== 0x3a /* : */) return false;
        i++;
        expect = VALUE;
      } else {
        expect = AFTER;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const object = c === 0x7b;
      i++;
      while (i < n && buf[i] === 0x20) i++;
      if (buf[i] === (object ? 0x7d : 0x5d)) {
        i++;
        expect = AFTER;
      } else {
        if (open.push(object) > maxDepth) return false;
        expect = object ? KEY : VALUE;
      }
    } else if (c === 0x2d /* - */ || isDigit(c)) {
      if (c === 0x2d) i++;
      if (buf[i] === 0x30 /* 0 */) i++;
      else if (isDigit(buf[i])) while (isDigit(buf[i])) i++;
      else return false;
      if (buf[i] === 0x2e /* . */) {
        i++;
        if (!isDigit(buf[i])) return false;
        while (isDigit(buf[i])) i++;
      }
      if (buf[i] === 0x65 /* e */ || buf[i] === 0x45 /* E */) {
        i++;
        if (buf[i] === 0x2b /* + */ || buf[i] === 0x2d /* - */) i++;
        if (!isDigit(buf[i])) return false;
        while (isDigit(buf[i])) i++;
      }
      expect = AFTER;
    } else {
      const word = c === 0x74 ? TRUE : c === 0x66 ? FALSE : c === 0x6e ? NULL : undefined;
      if (word === undefined) return false;
      for (let k = 1; k < word.length; k++) if (buf[i + k] !== word[k]) return false;
      i += word.length;
      expect = AFTER;
    }
  }
}

/** States of `isJsonBytes`. */
const VALUE = 0;
const KEY = 1;
const AFTER = 2;

const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL = Buffer.from('null');

/**
 * Whether `buf` is one JSON text, exactly as `JSON.parse` accepts it, nested at most `maxDepth`
 * deep, with no control byte (so no raw tab, CR or LF) anywhere: bytes that pass can be embedded
 * verbatim in a JSON line (a log-file entry) and read back as the value `JSON.parse` gives. UTF-8
 * validity is not checked here (see `isUtf8`).
 */
export function isSingleLineJson(buf: Buffer, maxDepth = Infinity): boolean {
  return buf.length > 0 && hasNoControlBytes(buf) && isJsonBytes(buf, maxDepth);
}

/**
 * `isSingleLineJson` for text, which must also be well-formed UTF-16: a lone surrogate would not
 * survive being written as UTF-8.
 */
export function isSingleLineJsonText(text: string, maxDepth = Infinity): boolean {
  return (text as unknown as WellFormed).isWellFormed() && isSingleLineJson(Buffer.from(text), maxDepth);
}

/** ES2024's String.prototype.isWellFormed, in Node 20 but not yet in the ES2023 lib this project compiles against. */
interface WellFormed {
  isWellFormed(): boolean;
}
