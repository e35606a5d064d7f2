/**
 * Narrowing helpers for Anthropic wire JSON read from `unknown`, and the one
 * place warnings are recorded (each phrase once per request).
 */
import { isObject, type Json } from '../../protocols/shallow.js';
import type { CacheControl, TranslateContext } from '../ir.js';

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
export const objects = (v: unknown): Json[] => list(v).filter(isObject);

/** Records a dropped or approximated feature, once per request. */
export function warn(ctx: TranslateContext, phrase: string): void {
  if (!ctx.warnings.includes(phrase)) ctx.warnings.push(phrase);
}

/**
 * A block with no IR form: server-tool blocks (`server_tool_use`, `web_search_tool_result`, …),
 * which ran on Anthropic's side, and block types newer than this codec.
 */
export function warnDroppedBlock(block: Json, ctx: TranslateContext): void {
  const type = String(block.type);
  if (type === 'server_tool_use') warn(ctx, `${str(block.name) ?? 'server'} tool (server)`);
  else if (type.endsWith('_tool_result') || type === 'container_upload') warn(ctx, 'server tool results');
  else warn(ctx, `${type} block`);
}

/** `{cacheControl}` when the block has a `cache_control` object, else nothing (for spreading). */
export const readCache = (block: Json): { cacheControl?: CacheControl } =>
  isObject(block.cache_control) ? { cacheControl: block.cache_control } : {};

/** `{cache_control}` when the part carries one, else nothing (for spreading). */
export const writeCache = (part: { readonly cacheControl?: CacheControl }): { cache_control?: CacheControl } =>
  part.cacheControl !== undefined ? { cache_control: part.cacheControl } : {};

/** JSON text → object, or undefined when it is not JSON or not an object. */
export function parseObject(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
