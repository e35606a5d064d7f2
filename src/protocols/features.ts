/**
 * Which request fields turn a feature on, as data: one table per protocol (`<protocol>/features.ts`),
 * read by the request check, listed in the README and walked by the tests. A key group's `features`
 * hold only as far as these tables reach: a field left out is a way round them. So every field a
 * provider or the gateway's own translator acts on counts, vendor fields included, and a value counts
 * unless it plainly says "off".
 */
import { isObject, type Json } from './json.js';
import type { Feature } from './types.js';

export interface FeatureField {
  readonly feature: Feature;
  /** Where, from the body's root: `a.b` a key inside `a`, `[]` every element of an array. */
  readonly field: string;
  /** When the field counts, in words (the README's table). */
  readonly when: string;
  readonly uses: (body: Json) => boolean;
}

/** The features a body uses, each once; a row whose feature was found already is skipped (image rows walk content). */
export function featuresOf(table: readonly FeatureField[], body: Json): Feature[] {
  const features: Feature[] = [];
  for (const row of table) if (!features.includes(row.feature) && row.uses(body)) features.push(row.feature);
  return features;
}

/** A value at a dotted path (no arrays), or undefined. */
export function at(body: Json, path: readonly string[]): unknown {
  let v: unknown = body;
  for (const key of path) {
    if (!isObject(v)) return undefined;
    v = v[key];
  }
  return v;
}

/** A list that may hold something: present, and not an empty array (a non-array counts: lax servers coerce). */
export const listed = (v: unknown): boolean => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);

/** Present at all (`web_search_options: {}` turns web search on). */
export const present = (v: unknown): boolean => v !== undefined && v !== null && v !== false;

/** `tool_choice` (and Chat's `function_call`) names a tool or demands one; `auto` and `none` alone do not. */
export function namesTool(v: unknown): boolean {
  if (typeof v === 'string') return v !== 'auto' && v !== 'none';
  if (isObject(v)) return v.type !== 'auto' && v.type !== 'none';
  return v !== undefined && v !== null;
}

const OFF_WORDS: ReadonlySet<string> = new Set(['none', 'disabled']);
/** Keys of a switch object that say on or off. Any of them saying on wins; an object with none of them is on. */
const SWITCH_KEYS = ['type', 'enabled', 'effort', 'max_tokens', 'budget_tokens'] as const;

/**
 * Whether a reasoning switch asks for reasoning. Off is only: absent, null, false, 0, `"none"`,
 * `"disabled"`, or an object whose switch keys all say so (`{"type":"disabled"}`, `{"effort":"none"}`,
 * `{"enabled":false}`). Everything else is on: `{}` and `{"summary":"auto"}` leave the effort to the
 * model, which then reasons; a string a server might coerce (`"false"`) is not trusted to mean off.
 */
export function switchedOn(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0) return false;
  if (typeof v === 'string') return !OFF_WORDS.has(v);
  if (!isObject(v)) return true;
  let off = false;
  for (const key of SWITCH_KEYS) {
    const s = v[key];
    if (s === undefined || s === null) continue;
    if (switchedOn(s)) return true;
    off = true;
  }
  return !off;
}

/**
 * Part types that are images, in any of the protocols (a lax server may take another protocol's
 * spelling, so each protocol checks them all): Chat `image_url`, Responses `input_image` and the
 * `computer_screenshot` of a computer-use output, Messages `image`, vLLM's `image_embeds` and `image_pil`.
 */
const IMAGE_TYPES: ReadonlySet<string> = new Set(['image_url', 'input_image', 'computer_screenshot', 'image', 'image_embeds', 'image_pil']);
/**
 * Keys under which parts hold more parts: message and tool-result `content`, Responses tool
 * `output`, a Messages document's `source` (a `content` source holds image blocks), Chat's `file`.
 */
const NESTED_KEYS = ['content', 'output', 'source', 'file'] as const;
const IMAGE_MEDIA = /^\s*image\//i;
const IMAGE_DATA_URL = /^\s*data:\s*image\//i;

/**
 * A file is not an image, but file data that declares an image type is one: the translator turns
 * such a file into an image block (`media_type: "image/png"`, `file_data: "data:image/png;…"`).
 */
function isImagePart(part: Json): boolean {
  if (typeof part.type === 'string' && IMAGE_TYPES.has(part.type)) return true;
  const media = part.media_type;
  if (typeof media === 'string' && IMAGE_MEDIA.test(media)) return true;
  for (const key of ['file_data', 'file_url', 'url'] as const) {
    const data = part[key];
    if (typeof data === 'string' && IMAGE_DATA_URL.test(data)) return true;
  }
  return false;
}

/**
 * Whether content holds an image anywhere: `v` a part, a list of parts, or a message or item holding
 * them. Each value is visited at most once, so the walk is linear in the body, and it goes no deeper
 * than the body's depth cap (pipeline/read.ts) allows.
 */
export function holdsImage(v: unknown): boolean {
  if (Array.isArray(v)) {
    for (const item of v) if (holdsImage(item)) return true;
    return false;
  }
  if (!isObject(v)) return false;
  if (isImagePart(v)) return true;
  for (const key of NESTED_KEYS) {
    const nested = v[key];
    if (typeof nested === 'object' && nested !== null && holdsImage(nested)) return true;
  }
  return false;
}

/** The values of an object's keys (Responses `prompt.variables`), or a list's elements. */
export function valuesOf(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  return isObject(v) ? Object.values(v) : [];
}
