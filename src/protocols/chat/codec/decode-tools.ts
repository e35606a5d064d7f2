/**
 * Chat tool definitions and `tool_choice` → IR, the deprecated `functions` /
 * `function_call` pair included.
 * @see README.md, "Translation" › "What maps to what"
 */
import type { Tool, ToolChoice, TranslateContext } from '../../../translate/ir.js';
import { bool, isObject, obj, objects, str, warn, type Json } from './read.js';

function functionTool(fn: Json): Tool | undefined {
  const name = str(fn.name);
  if (name === undefined) return undefined;
  const description = str(fn.description);
  const strict = bool(fn.strict);
  return {
    kind: 'function',
    name,
    ...(description !== undefined ? { description } : {}),
    ...(isObject(fn.parameters) ? { parameters: fn.parameters } : {}),
    ...(strict !== undefined ? { strict } : {}),
  };
}

function customTool(custom: Json): Tool | undefined {
  const name = str(custom.name);
  if (name === undefined) return undefined;
  const description = str(custom.description);
  return {
    kind: 'custom',
    name,
    ...(description !== undefined ? { description } : {}),
    // Kept in Chat's own shape (`{type:'grammar', grammar:{syntax, definition}}`); opaque to the IR.
    ...(isObject(custom.format) ? { format: custom.format } : {}),
  };
}

export function decodeTools(body: Json, ctx: TranslateContext): Tool[] {
  const tools: Tool[] = [];
  for (const t of objects(body.tools)) {
    const tool = t.type === 'function' ? functionTool(obj(t.function)) : t.type === 'custom' ? customTool(obj(t.custom)) : undefined;
    if (tool) tools.push(tool);
    else warn(ctx, `${String(t.type)} tool`);
  }
  // Deprecated predecessor of `tools`: plain function definitions.
  for (const fn of objects(body.functions)) {
    const tool = functionTool(fn);
    if (tool) tools.push(tool);
  }
  return tools;
}

export function decodeToolChoice(body: Json, ctx: TranslateContext): ToolChoice | undefined {
  const choice: unknown = body.tool_choice ?? body.function_call;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { type: choice };
  if (!isObject(choice)) return undefined;
  if (choice.type === 'allowed_tools') {
    // The IR has no subset choice: keep the mode, offer every tool.
    warn(ctx, 'allowed_tools');
    return obj(choice.allowed_tools).mode === 'required' ? { type: 'required' } : { type: 'auto' };
  }
  // Legacy `function_call: {name}` has no `type`.
  if (choice.type === undefined && typeof choice.name === 'string') return { type: 'tool', name: choice.name };
  const name = choice.type === 'custom' ? str(obj(choice.custom).name) : str(obj(choice.function).name);
  return name !== undefined ? { type: 'tool', name } : undefined;
}
