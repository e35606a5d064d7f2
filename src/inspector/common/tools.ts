/**
 * What translation did to a request's tools, by name: kept, converted (a custom tool
 * sent as a function), flattened (a Codex namespace tool sent as `<ns>__<tool>`
 * functions) or dropped (hosted tools only the client's own vendor runs).
 */
import type { Protocol } from '../../protocols/types.js';

export type ToolKind = 'function' | 'custom' | 'namespace' | 'hosted';

export interface ToolRef {
  readonly name: string;
  readonly kind: ToolKind;
  /** A namespace's tools. */
  readonly children?: readonly string[];
}

export interface ToolChanges {
  readonly kept: readonly string[];
  readonly converted: readonly { readonly name: string; readonly from: ToolKind; readonly to: ToolKind }[];
  readonly flattened: readonly { readonly from: string; readonly to: string }[];
  readonly dropped: readonly ToolRef[];
  /** Tools upstream that the client did not send (rare). */
  readonly added: readonly string[];
}

const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The tools a request body declares, read as its protocol writes them. */
export function toolsOf(body: unknown, protocol: Protocol | undefined): ToolRef[] {
  const tools = obj(body).tools;
  if (!Array.isArray(tools)) return [];
  const out: ToolRef[] = [];
  for (const raw of tools) {
    const t = obj(raw);
    const type = str(t.type);
    if (protocol === 'chat') {
      if (type === 'function') out.push({ name: str(obj(t.function).name) ?? '?', kind: 'function' });
      else if (type === 'custom') out.push({ name: str(obj(t.custom).name) ?? '?', kind: 'custom' });
      else out.push({ name: type ?? '?', kind: 'hosted' });
    } else if (protocol === 'messages') {
      // Client tools have an input_schema (type absent or "custom"); server tools a dated type such as web_search_20250305.
      if (t.input_schema !== undefined || type === undefined || type === 'custom') out.push({ name: str(t.name) ?? '?', kind: 'function' });
      else out.push({ name: str(t.name) ?? type, kind: 'hosted' });
    } else if (type === 'function' || type === 'custom') {
      out.push({ name: str(t.name) ?? '?', kind: type });
    } else if (type === 'namespace') {
      const children = Array.isArray(t.tools) ? t.tools.map((c) => str(obj(c).name) ?? '?') : [];
      out.push({ name: str(t.name) ?? '?', kind: 'namespace', children });
    } else {
      out.push({ name: type ?? '?', kind: 'hosted' });
    }
  }
  return out;
}

export function toolChanges(client: readonly ToolRef[], upstream: readonly ToolRef[]): ToolChanges {
  const up = new Map(upstream.map((t) => [t.name, t]));
  const used = new Set<string>();
  const kept: string[] = [];
  const converted: { name: string; from: ToolKind; to: ToolKind }[] = [];
  const flattened: { from: string; to: string }[] = [];
  const dropped: ToolRef[] = [];
  for (const t of client) {
    if (t.kind === 'namespace') {
      const lost: string[] = [];
      for (const child of t.children ?? []) {
        const flat = `${t.name}__${child}`;
        const hit = up.get(flat) ?? up.get(child);
        if (hit) {
          used.add(hit.name);
          flattened.push({ from: `${t.name}.${child}`, to: hit.name });
        } else lost.push(child);
      }
      if (lost.length > 0) dropped.push({ name: t.name, kind: 'namespace', children: lost });
      continue;
    }
    const hit = up.get(t.name);
    if (!hit) {
      dropped.push(t);
      continue;
    }
    used.add(hit.name);
    if (hit.kind === t.kind) kept.push(t.name);
    else converted.push({ name: t.name, from: t.kind, to: hit.kind });
  }
  const added = upstream.filter((t) => !used.has(t.name)).map((t) => t.name);
  return { kept, converted, flattened, dropped, added };
}
