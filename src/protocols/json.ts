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
