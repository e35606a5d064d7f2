/**
 * Reading a Gemini request's fields. Google's JSON parser takes each field by its lowerCamel name
 * (what the SDKs send) or its proto name in snake_case, so a check that read one spelling only would
 * be a way round it: every read here takes both, the lowerCamel one first.
 */
import { isObject, type Json } from '../json.js';

/** `lowerCamel` → `lower_camel`. */
const snake = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The value of `name` (lowerCamel) in `o`, under either spelling. */
export function field(o: unknown, name: string): unknown {
  if (!isObject(o)) return undefined;
  const camel = o[name];
  return camel !== undefined ? camel : o[snake(name)];
}

/** The value at a dotted path of lowerCamel names, each step under either spelling. */
export function fieldAt(o: unknown, path: string): unknown {
  let v: unknown = o;
  for (const name of path.split('.')) v = field(v, name);
  return v;
}

/** The spellings of a dotted path: all lowerCamel, and all snake_case (what `asks` lists). */
export const spellings = (path: string): readonly string[] => [path, path.split('.').map(snake).join('.')];

/** The objects of an array field, skipping anything else. */
export const objectsAt = (o: unknown, name: string): Json[] => {
  const v = field(o, name);
  return Array.isArray(v) ? v.filter(isObject) : [];
};
