/**
 * Tool names across protocols. Anthropic and Chat want flat names matching
 * `^[a-zA-Z0-9_-]{1,64}$`; Codex sends `namespace` tools (nested functions) and
 * `custom` tools. Request encoders flatten and sanitise through `upstreamToolName`,
 * which remembers the mapping in the context; response and stream decoders map
 * a name the upstream used back with `callerTool`, so the caller sees its own
 * namespace, name and tool kind again.
 */
import type { CallerTool, TranslateContext } from '../ir.js';

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_NAME = 64;
/** Between namespace and name in a flattened name. */
export const NAMESPACE_SEPARATOR = '__';

/**
 * A name already taken by another tool gets `<stem>_<n>`. The stem is the name cut to leave room for a
 * seven-digit suffix, so every such name splits back into one stem and one number: each stem keeps
 * the next number to try, and a request with thousands of colliding names costs one step per name,
 * not a walk along the names taken before it.
 */
const STEM = MAX_NAME - 8;

/** What de-duplication remembers for one request, beside the names themselves. */
interface Suffixes {
  /** Per stem, the next number to try. */
  readonly next: Map<string, number>;
  /** The names given to tools whose own name was taken, by `toolKey`. */
  readonly renamed: Map<string, string>;
}

/** Keyed by the context's name map: the state lives and dies with the request's translation. */
const suffixes = new WeakMap<Map<string, CallerTool>, Suffixes>();

export function upstreamToolName(ctx: TranslateContext, tool: CallerTool): string {
  const joined = tool.namespace ? `${tool.namespace}${NAMESPACE_SEPARATOR}${tool.name}` : tool.name;
  const base = VALID.test(joined) ? joined : joined.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, MAX_NAME) || 'tool';
  const names = ctx.toolNames;
  const holder = names.get(base);
  if (holder === undefined) {
    names.set(base, tool);
    return base;
  }
  if (sameTool(holder, tool)) return base;
  // Two different tools must not collapse into one name.
  let state = suffixes.get(names);
  if (state === undefined) {
    state = { next: new Map(), renamed: new Map() };
    suffixes.set(names, state);
  }
  const key = toolKey(tool);
  const known = state.renamed.get(key);
  if (known !== undefined) return known;
  const stem = base.slice(0, STEM);
  let n = state.next.get(stem) ?? 2;
  let name: string;
  do name = withSuffix(stem, n++);
  while (names.has(name));
  state.next.set(stem, n);
  state.renamed.set(key, name);
  names.set(name, tool);
  return name;
}

function withSuffix(stem: string, n: number): string {
  const suffix = `_${n}`;
  return `${stem.slice(0, MAX_NAME - suffix.length)}${suffix}`;
}

/** The caller's view of a tool name the upstream used; unknown names are taken as plain function tools. */
export function callerTool(ctx: TranslateContext, upstreamName: string): CallerTool {
  return ctx.toolNames.get(upstreamName) ?? { name: upstreamName, kind: 'function' };
}

const sameTool = (a: CallerTool, b: CallerTool) => a.name === b.name && a.namespace === b.namespace && a.kind === b.kind;

/** One string per tool identity (kind, namespace, name), unambiguous whatever characters the names hold. */
const toolKey = (t: CallerTool): string => JSON.stringify([t.kind, t.namespace ?? null, t.name]);
