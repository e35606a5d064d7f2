/**
 * Passthrough changes exactly one thing in a request body: the `model` value.
 * Re-serialising a large agent request costs more than the rest of the hop
 * together (docs/performance.md, "Forwarding the original bytes"), so the new name is spliced into the
 * original bytes and every other byte goes upstream as the client sent it.
 */
import { isSpace } from '../protocols/json.js';
import { MODEL_KEY, holdsAt, outlineJson, stringValueAfter } from '../protocols/json-outline.js';

/**
 * Where the string value of the root object's `model` key sits, as [start, end).
 * The last occurrence wins, as with JSON.parse. Only valid JSON is given here
 * (it was parsed first).
 */
export function findModelValue(buf: Buffer): [number, number] | undefined {
  const first = buf.indexOf(MODEL_KEY);
  if (first === -1) return undefined;
  // Every SDK sends `model` first. When those are the only such bytes in the body, they are the key, and no
  // scan of the rest is needed. (Agents' bodies hold another `"model"` in a tool's schema: they are scanned.)
  if (opensWith(buf, first) && buf.indexOf(MODEL_KEY, first + MODEL_KEY.length) === -1) return stringValueAfter(buf, first + MODEL_KEY.length);
  return outlineJson(buf, Infinity).model;
}

/** Whether only whitespace and the root object's `{` come before `at`: there, a string is the object's first key. */
function opensWith(buf: Buffer, at: number): boolean {
  let i = 0;
  while (isSpace(buf[i])) i++;
  if (buf[i] !== 0x7b /* { */) return false;
  i++;
  while (isSpace(buf[i])) i++;
  return i === at;
}

/**
 * Model names as JSON text, in bytes: the names a gateway sees are few, and each request would
 * otherwise encode its new name and decode its old one. Bounded, as the old names come from clients.
 */
const encodedNames = new Map<string, Buffer>();
function encodedName(name: string): Buffer {
  let bytes = encodedNames.get(name);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(name));
    if (encodedNames.size < 256) encodedNames.set(name, bytes);
  }
  return bytes;
}

/**
 * The body with `model` replaced by `model`, all other bytes untouched. `at`: where the old value sits,
 * when parsing found it already (see parseRequestBody).
 */
export function renameModel(raw: Buffer, json: Record<string, unknown>, model: string, at?: [number, number]): Buffer {
  if (json.model === model) return raw;
  const span = at ?? findModelValue(raw);
  // An escaped key (`"mod\u0065l"`) is legal JSON but never sent by real clients: re-serialise then.
  if (span === undefined || typeof json.model !== 'string' || !holdsName(raw, span, json.model)) {
    return Buffer.from(JSON.stringify({ ...json, model }));
  }
  const name = encodedName(model);
  return Buffer.concat([raw.subarray(0, span[0]), name, raw.subarray(span[1])], raw.length - (span[1] - span[0]) + name.length);
}

/** Whether the JSON string at `span` is `name`: the same bytes as its plain encoding, or, written with escapes, the same once parsed. */
function holdsName(raw: Buffer, [start, end]: [number, number], name: string): boolean {
  const plain = encodedName(name);
  if (end - start === plain.length && holdsAt(raw, start, plain)) return true;
  return JSON.parse(raw.toString('utf8', start, end)) === name;
}

