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
