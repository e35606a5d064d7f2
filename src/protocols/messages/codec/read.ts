/**
 * Narrowing helpers for Anthropic wire JSON read from `unknown`, and the one
 * place warnings are recorded (each phrase once per request).
 */
import { isObject, str, type Json } from '../../json.js';
import type { CacheControl, TranslateContext } from '../../../translate/ir.js';
import { warn } from '../../../translate/common/warn.js';

export { str, num, list, objects, parseObject } from '../../json.js';
export { warn } from '../../../translate/common/warn.js';

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
