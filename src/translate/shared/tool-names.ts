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
/** Between namespace and name in a flattened name. */
export const NAMESPACE_SEPARATOR = '__';

export function upstreamToolName(ctx: TranslateContext, tool: CallerTool): string {
  const joined = tool.namespace ? `${tool.namespace}${NAMESPACE_SEPARATOR}${tool.name}` : tool.name;
  let name = VALID.test(joined) ? joined : joined.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'tool';
  // Two different tools must not collapse into one name.
  for (let n = 2; ctx.toolNames.has(name) && !sameTool(ctx.toolNames.get(name)!, tool); n++) {
    const suffix = `_${n}`;
    name = `${name.slice(0, 64 - suffix.length)}${suffix}`;
  }
  ctx.toolNames.set(name, tool);
  return name;
}

/** The caller's view of a tool name the upstream used; unknown names are taken as plain function tools. */
export function callerTool(ctx: TranslateContext, upstreamName: string): CallerTool {
  return ctx.toolNames.get(upstreamName) ?? { name: upstreamName, kind: 'function' };
}

const sameTool = (a: CallerTool, b: CallerTool) => a.name === b.name && a.namespace === b.namespace && a.kind === b.kind;
