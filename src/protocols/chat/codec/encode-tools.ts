/**
 * IR tools and tool choice → Chat. Custom tools go as a function stand-in with
 * one `input` string parameter: most compatible servers have no Chat `custom`
 * tools, and a stand-in works everywhere. Their format is told in the description.
 * @see README.md, "Translation" › "What maps to what"
 */
import type { Tool, ToolChoice, TranslateContext } from '../../../translate/ir.js';
import { CUSTOM_INPUT_SCHEMA } from '../../../translate/common/tool-args.js';
import { upstreamToolName } from '../../../translate/common/tool-names.js';
import { isObject, str, warn, type Json } from './read.js';

/** Enough of a grammar to guide the model without swamping the tool list. */
const FORMAT_LIMIT = 4000;
const SYNTAX_NAMES: Record<string, string> = { lark: 'Lark', regex: 'Regex' };

/** A custom tool's format as a sentence; grammars come flat (Responses) or nested (Chat). */
function formatDescription(format: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (!isObject(format) || format.type !== 'grammar') return undefined;
  const grammar = isObject(format.grammar) ? format.grammar : format;
  const syntax = str(grammar.syntax) ?? 'grammar';
  const definition = str(grammar.definition) ?? '';
  const text = `Input format: ${SYNTAX_NAMES[syntax] ?? syntax} grammar: ${definition}`;
  return text.length > FORMAT_LIMIT ? `${text.slice(0, FORMAT_LIMIT - 1)}…` : text;
}

const nameOf = (ctx: TranslateContext, name: string, kind: Tool['kind'], namespace: string | undefined) =>
  upstreamToolName(ctx, { name, kind, ...(namespace !== undefined ? { namespace } : {}) });

function encodeTool(tool: Tool, ctx: TranslateContext): Json {
  if (tool.cacheControl !== undefined) warn(ctx, 'cache_control');
  const name = nameOf(ctx, tool.name, tool.kind, tool.namespace);
  if (tool.kind === 'custom') {
    const format = formatDescription(tool.format);
    if (format !== undefined) warn(ctx, 'custom tool grammar');
    const description = [tool.description, format].filter((s) => s !== undefined && s !== '').join('\n\n');
    return {
      type: 'function',
      function: { name, ...(description !== '' ? { description } : {}), parameters: CUSTOM_INPUT_SCHEMA },
    };
  }
  return {
    type: 'function',
    function: {
      name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      // Anthropic-sourced tools always have a schema; a missing one means "no parameters" and some servers need the object.
      parameters: tool.parameters ?? { type: 'object', properties: {} },
      ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
    },
  };
}

export const encodeTools = (tools: readonly Tool[], ctx: TranslateContext): Json[] => tools.map((t) => encodeTool(t, ctx));

export function encodeToolChoice(choice: ToolChoice, tools: readonly Tool[], ctx: TranslateContext): unknown {
  if (choice.type !== 'tool') return choice.type;
  const declared = tools.find((t) => t.name === choice.name && t.namespace === choice.namespace);
  return { type: 'function', function: { name: nameOf(ctx, choice.name, declared?.kind ?? 'function', choice.namespace) } };
}

