/**
 * IR tools and tool choice → Responses, for an OpenAI Responses upstream.
 * Namespaces are flattened into the tool name (as for Chat and Messages, see
 * `common/tool-names.ts`); custom tools stay custom, which Responses supports.
 * Function tools always carry `strict` explicitly: leaving it out turns strict
 * mode on in Responses, which rejects most non-strict schemas.
 * @see README.md, "Translation" › "What maps to what"
 */
import type { Json } from '../../shallow.js';
import type * as Ir from '../../../translate/ir.js';
import { upstreamToolName } from '../../../translate/common/tool-names.js';

const nameOf = (tool: Ir.Tool, ctx: Ir.TranslateContext) =>
  upstreamToolName(ctx, { name: tool.name, kind: tool.kind, ...(tool.namespace !== undefined ? { namespace: tool.namespace } : {}) });

export function encodeTool(tool: Ir.Tool, ctx: Ir.TranslateContext): Json {
  const description = tool.description !== undefined ? { description: tool.description } : {};
  if (tool.kind === 'custom') {
    return { type: 'custom', name: nameOf(tool, ctx), ...description, ...(tool.format !== undefined ? { format: tool.format } : {}) };
  }
  return {
    type: 'function',
    name: nameOf(tool, ctx),
    ...description,
    // `null` is how Responses says "no parameters".
    parameters: tool.parameters ?? null,
    strict: tool.strict ?? false,
  };
}

export function encodeToolChoice(choice: Ir.ToolChoice, tools: readonly Ir.Tool[], ctx: Ir.TranslateContext): Json | string {
  if (choice.type !== 'tool') return choice.type;
  const tool = tools.find((t) => t.name === choice.name && t.namespace === choice.namespace) ??
    tools.find((t) => t.name === choice.name) ?? {
      kind: 'function' as const,
      name: choice.name,
      ...(choice.namespace !== undefined ? { namespace: choice.namespace } : {}),
    };
  return { type: tool.kind === 'custom' ? 'custom' : 'function', name: nameOf(tool, ctx) };
}
