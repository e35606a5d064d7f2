/**
 * Responses tool definitions and `tool_choice` → IR. Function and custom tools
 * map one to one; a `namespace` tool (Codex) becomes its nested tools, each
 * remembering the namespace; hosted tools run on OpenAI's side and cannot be
 * offered by another provider, so they are dropped and listed.
 */
import { invalidRequest } from '../../../errors.js';
import { isObject, type Json } from '../../shallow.js';
import type { Tool, ToolChoice, TranslateContext } from '../../../translate/ir.js';
import { bool, objects, str, warn } from './read.js';

function functionOrCustom(t: Json, where: string, namespace: string | undefined): Tool {
  const name = str(t.name);
  if (!name) throw invalidRequest(`\`${where}.name\` must be a non-empty string.`, `${where}.name`);
  const description = str(t.description);
  const common = {
    name,
    ...(description !== undefined ? { description } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
  };
  if (t.type === 'custom') {
    return { kind: 'custom', ...common, ...(isObject(t.format) ? { format: t.format } : {}) };
  }
  // Responses turns strict mode on when `strict` is omitted; the IR records only what was sent.
  const strict = bool(t.strict);
  return {
    kind: 'function',
    ...common,
    ...(isObject(t.parameters) ? { parameters: t.parameters } : {}),
    ...(strict !== undefined ? { strict } : {}),
  };
}

/** `tools` (or an `additional_tools` item's tools) → IR tools, hosted ones dropped with a warning. */
export function decodeTools(tools: unknown, ctx: TranslateContext, where: string): Tool[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw invalidRequest(`\`${where}\` must be an array.`, where);
  const out: Tool[] = [];
  tools.forEach((t: unknown, i) => {
    if (!isObject(t)) throw invalidRequest(`\`${where}[${i}]\` must be an object.`, `${where}[${i}]`);
    if (t.type === 'function' || t.type === 'custom') out.push(functionOrCustom(t, `${where}[${i}]`, undefined));
    else if (t.type === 'namespace') {
      const namespace = str(t.name);
      if (!namespace) throw invalidRequest(`\`${where}[${i}].name\` must be a non-empty string.`, `${where}[${i}].name`);
      // The namespace's own description has no place in a flat tool list.
      if (str(t.description)) warn(ctx, 'namespace description');
      objects(t.tools).forEach((nested, j) => {
        const at = `${where}[${i}].tools[${j}]`;
        if (nested.type === 'function' || nested.type === 'custom') out.push(functionOrCustom(nested, at, namespace));
        else warn(ctx, `${String(nested.type)} tool (hosted)`);
      });
    } else warn(ctx, `${String(t.type)} tool (hosted)`);
  });
  return out;
}

export interface DecodedChoice {
  readonly choice?: ToolChoice;
  /** `allowed_tools`: only these tool names may be used (the IR filters the tool list instead). */
  readonly allowed?: ReadonlySet<string>;
}

/** Responses `tool_choice`: a mode, a function, hosted tools, or `allowed_tools` (docs/protocols.md). */
export function decodeToolChoice(choice: unknown, ctx: TranslateContext): DecodedChoice {
  if (choice === undefined || choice === null) return {};
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { choice: { type: choice } };
  if (!isObject(choice)) throw invalidRequest('`tool_choice` must be a string or an object.', 'tool_choice');
  if (choice.type === 'function' || choice.type === 'custom') {
    const name = str(choice.name);
    if (!name) throw invalidRequest('`tool_choice.name` must be a non-empty string.', 'tool_choice.name');
    return { choice: { type: 'tool', name } };
  }
  if (choice.type === 'allowed_tools') {
    const names = objects(choice.tools).map((t) => str(t.name)).filter((n): n is string => n !== undefined);
    return { choice: { type: choice.mode === 'required' ? 'required' : 'auto' }, allowed: new Set(names) };
  }
  warn(ctx, `${String(choice.type)} tool_choice (hosted)`);
  return { choice: { type: 'auto' } };
}
