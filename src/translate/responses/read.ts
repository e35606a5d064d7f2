/**
 * Narrowing helpers for Responses wire JSON read from `unknown`, and the one
 * place warnings are recorded (each phrase once per request).
 */
import { isObject, type Json } from '../../protocols/shallow.js';
import type { TranslateContext } from '../ir.js';

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
export const objects = (v: unknown): Json[] => list(v).filter(isObject);

/** Records a dropped or approximated feature, once per request. */
export function warn(ctx: TranslateContext, phrase: string): void {
  if (!ctx.warnings.includes(phrase)) ctx.warnings.push(phrase);
}

/** `data:<media type>;base64,<data>` → its parts; undefined for anything else (plain URLs). */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]*)(?:;[^,]*)?;base64,/i.exec(url);
  return match ? { mediaType: match[1] || 'application/octet-stream', data: url.slice(match[0].length) } : undefined;
}

export const dataUrl = (mediaType: string, data: string): string => `data:${mediaType};base64,${data}`;
