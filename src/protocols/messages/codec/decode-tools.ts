/**
 * Anthropic `tools` and `tool_choice` → IR. Client tools map one to one;
 * server and Anthropic-defined tools (a versioned `type` such as
 * `web_search_20250305`, `bash_20250124`, `text_editor_*`) run on Anthropic's
 * side and cannot be offered to another provider: dropped with a warning.
 * @see README.md, "Translation" › "What maps to what"
 */
import { isObject, type Json } from '../../shallow.js';
import type * as Ir from '../../../translate/ir.js';
import { objects, readCache, str, warn } from './read.js';

/** A client tool has no `type`, or `type: 'custom'`. */
const isClientTool = (t: Json): boolean => t.type === undefined || t.type === null || t.type === 'custom';

/**
 * The tools a tool search has loaded so far: the names its `tool_reference` blocks carry inside
 * tool results. Anthropic shows a `defer_loading` tool to the model only from then on; translated
 * requests do the same by offering it to the upstream only from then on.
 */
function loadedTools(messages: unknown): Set<string> {
  const names = new Set<string>();
  for (const m of objects(messages)) {
    for (const block of objects(m.content)) {
      if (block.type !== 'tool_result') continue;
      for (const b of objects(block.content)) if (b.type === 'tool_reference' && typeof b.tool_name === 'string') names.add(b.tool_name);
    }
  }
  return names;
}

export function decodeTools(tools: unknown, messages: unknown, ctx: Ir.TranslateContext): Ir.Tool[] {
  const out: Ir.Tool[] = [];
  let loaded: Set<string> | undefined;
  for (const t of objects(tools)) {
    const name = str(t.name) ?? '';
    if (!isClientTool(t)) {
      warn(ctx, `${name || String(t.type)} tool (server)`);
      continue;
    }
    if (t.defer_loading === true) {
      loaded ??= loadedTools(messages);
      if (!loaded.has(name)) continue;
    }
    const description = str(t.description);
    // Examples have no field elsewhere and change what the model sees: listed. `eager_input_streaming`
    // and `allowed_callers` only tune Anthropic's own tool handling and go without a word.
    if (Array.isArray(t.input_examples) && t.input_examples.length > 0) warn(ctx, 'tool input_examples');
    out.push({
      kind: 'function',
      name,
      ...(description !== undefined ? { description } : {}),
      ...(isObject(t.input_schema) ? { parameters: t.input_schema } : {}),
      ...(typeof t.strict === 'boolean' ? { strict: t.strict } : {}),
      ...readCache(t),
    });
  }
  return out;
}

export interface DecodedChoice {
  readonly toolChoice?: Ir.ToolChoice;
  readonly parallelToolCalls?: boolean;
}

export function decodeToolChoice(choice: unknown, tools: readonly Ir.Tool[], ctx: Ir.TranslateContext): DecodedChoice {
  if (!isObject(choice)) return {};
  const parallel = choice.disable_parallel_tool_use === true ? { parallelToolCalls: false } : {};
  switch (choice.type) {
    case 'auto':
      return { toolChoice: { type: 'auto' }, ...parallel };
    case 'any':
      return { toolChoice: { type: 'required' }, ...parallel };
    case 'none':
      return { toolChoice: { type: 'none' } };
    case 'tool': {
      const name = str(choice.name) ?? '';
      // Forcing a dropped server tool (Claude Code's WebSearch sub-request) would name a tool the upstream never sees.
      if (!tools.some((t) => t.name === name)) {
        warn(ctx, 'tool_choice for a dropped tool');
        return parallel;
      }
      return { toolChoice: { type: 'tool', name }, ...parallel };
    }
    default:
      warn(ctx, `tool_choice ${String(choice.type)}`);
      return parallel;
  }
}
