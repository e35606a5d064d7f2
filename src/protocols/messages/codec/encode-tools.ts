/**
 * IR tools and tool_choice → Anthropic. Function tools become client tools with
 * an object `input_schema`; custom (free-form) tools become a function stand-in
 * with one `input` string parameter and a description of the expected format.
 * @see README.md, "Translation" › "What maps to what"
 */
import { isObject, type Json } from '../../shallow.js';
import type * as Ir from '../../../translate/ir.js';
import { CUSTOM_INPUT_SCHEMA } from '../../../translate/common/tool-args.js';
import { upstreamToolName } from '../../../translate/common/tool-names.js';
import { str, warn, writeCache } from './read.js';

const callerToolOf = (t: { readonly name: string; readonly namespace?: string | undefined }, kind: Ir.ToolKind) => ({
  name: t.name,
  kind,
  ...(t.namespace !== undefined ? { namespace: t.namespace } : {}),
});

/** Anthropic requires `input_schema.type: 'object'`; no parameters is an empty object schema. */
function inputSchema(parameters: Ir.Tool['parameters'], ctx: Ir.TranslateContext): Json {
  if (parameters === undefined) return { type: 'object', properties: {} };
  if (parameters.type === 'object') return parameters;
  if (parameters.type === undefined) return { type: 'object', ...parameters };
  warn(ctx, 'non-object tool parameters');
  return { type: 'object', properties: {} };
}

/** What a custom tool's input must look like, for the model that only sees a string parameter. */
function customFormatNote(format: Ir.Tool['format']): string {
  if (!format || format.type === 'text') return 'The `input` parameter is free-form text.';
  // Chat nests the grammar (`{type:'grammar', grammar:{syntax, definition}}`); Responses has it flat.
  const grammar = isObject(format.grammar) ? format.grammar : format;
  const syntax = str(grammar.syntax) ?? 'grammar';
  const definition = str(grammar.definition) ?? '';
  return `The \`input\` parameter must be text matching this ${syntax} grammar:\n${definition}`;
}

function encodeTool(tool: Ir.Tool, ctx: Ir.TranslateContext): Json {
  const name = upstreamToolName(ctx, callerToolOf(tool, tool.kind));
  if (tool.kind === 'custom') {
    const note = customFormatNote(tool.format);
    return {
      name,
      description: tool.description ? `${tool.description}\n\n${note}` : note,
      input_schema: CUSTOM_INPUT_SCHEMA,
      ...writeCache(tool),
    };
  }
  return {
    name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    input_schema: inputSchema(tool.parameters, ctx),
    // Strict mode is opt-in on Anthropic, so only an explicit true needs saying.
    ...(tool.strict === true ? { strict: true } : {}),
    ...writeCache(tool),
  };
}

export const encodeTools = (tools: readonly Ir.Tool[], ctx: Ir.TranslateContext): Json[] => tools.map((t) => encodeTool(t, ctx));

/**
 * The `tool_choice` object, or undefined. `parallelToolCalls: false` needs an object to ride on
 * (`auto` when none was given); `none` cannot carry it, and without tools a choice is rejected.
 */
export function encodeToolChoice(request: Ir.Request, ctx: Ir.TranslateContext): Json | undefined {
  if (request.tools.length === 0) return undefined;
  const noParallel = request.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  const choice = request.toolChoice;
  switch (choice?.type) {
    case undefined:
      return request.parallelToolCalls === false ? { type: 'auto', ...noParallel } : undefined;
    case 'auto':
      return { type: 'auto', ...noParallel };
    case 'required':
      return { type: 'any', ...noParallel };
    case 'none':
      return { type: 'none' };
    case 'tool': {
      const declared = request.tools.find((t) => t.name === choice.name && t.namespace === choice.namespace);
      return { type: 'tool', name: upstreamToolName(ctx, callerToolOf(choice, declared?.kind ?? 'function')), ...noParallel };
    }
  }
}
