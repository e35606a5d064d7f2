/**
 * A structural diff of two JSON values: every path where they differ, arrays
 * compared by position. Fields that differ on every run (ids, timestamps, usage)
 * are left out, so what remains is what the answer says.
 */
import { printableJson } from '../log/terminal-text.js';

export interface Difference {
  /** `choices[0].message.content`; empty for the root. Other keys are quoted as JSON, safe to print. */
  readonly path: string;
  readonly kind: 'changed' | 'added' | 'removed';
  readonly before?: unknown;
  readonly after?: unknown;
}

/** Keys whose values are expected to change between two runs of the same request. */
const VOLATILE = new Set(['id', 'created', 'created_at', 'completed_at', 'system_fingerprint', 'usage']);

/** Ids (`id`, `call_id`, `item_id`, `tool_use_id`, …), timestamps and usage. */
export function isVolatileKey(key: string): boolean {
  return VOLATILE.has(key) || key.endsWith('_id');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const keyPath = (path: string, key: string) =>
  IDENTIFIER.test(key) ? (path === '' ? key : `${path}.${key}`) : `${path}[${printableJson(key)}]`;

export function diffJson(before: unknown, after: unknown, ignore: (key: string) => boolean = isVolatileKey): Difference[] {
  const out: Difference[] = [];
  walk(before, after, '', ignore, out);
  return out;
}

function walk(a: unknown, b: unknown, path: string, ignore: (key: string) => boolean, out: Difference[]): void {
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const p = `${path}[${i}]`;
      if (i >= b.length) out.push({ path: p, kind: 'removed', before: a[i] });
      else if (i >= a.length) out.push({ path: p, kind: 'added', after: b[i] });
      else walk(a[i], b[i], p, ignore, out);
    }
    return;
  }
  if (isObject(a) && isObject(b)) {
    for (const key of Object.keys(a)) {
      if (ignore(key)) continue;
      const p = keyPath(path, key);
      if (!(key in b)) out.push({ path: p, kind: 'removed', before: a[key] });
      else walk(a[key], b[key], p, ignore, out);
    }
    for (const key of Object.keys(b)) {
      if (!ignore(key) && !(key in a)) out.push({ path: keyPath(path, key), kind: 'added', after: b[key] });
    }
    return;
  }
  if (!Object.is(a, b)) out.push({ path, kind: 'changed', before: a, after: b });
}
