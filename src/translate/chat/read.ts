/**
 * Narrowing helpers for the Chat wire shapes, which arrive as `unknown` JSON,
 * and the warning helper every Chat mapper shares.
 */
import { isObject, type Json } from '../../protocols/shallow.js';
import type { TranslateContext } from '../ir.js';

export { isObject, type Json };

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
export const obj = (v: unknown): Json => (isObject(v) ? v : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
/** The objects of an array, skipping anything else. */
export const objects = (v: unknown): Json[] => arr(v).filter(isObject);

/** Notes a loss once per request (the list ends up in a response header, so repeats are noise). */
export function warn(ctx: TranslateContext, phrase: string): void {
  if (!ctx.warnings.includes(phrase)) ctx.warnings.push(phrase);
}

/** JSON text → value, or undefined when it does not parse. */
export function parseJson(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined;
  }
}
