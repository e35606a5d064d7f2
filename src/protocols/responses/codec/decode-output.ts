/**
 * Responses output items (what an upstream answered) → IR assistant parts.
 * Used for complete responses and for items a stream only showed whole. Tool
 * names go back through `callerTool`, so the caller sees its own namespace and
 * tool kind again; hosted tool items (run by OpenAI) are skipped and listed.
 */
import type { Json } from '../../shallow.js';
import type { AssistantPart, ReasoningPart, ToolCallPart, TranslateContext } from '../../../translate/ir.js';
import { argumentsToCustomInput } from '../../../translate/common/tool-args.js';
import { callerTool } from '../../../translate/common/tool-names.js';
import { objects, str, warn } from './read.js';

/** The texts of a reasoning item's `summary` and `content` lists. */
export const summaryTexts = (item: Json): string[] => objects(item.summary).map((s) => str(s.text) ?? '');
export const reasoningTexts = (item: Json): string[] =>
  objects(item.content).filter((c) => c.type === 'reasoning_text' || c.type === 'text').map((c) => str(c.text) ?? '');

/** A reasoning item (input or output) → IR, as it is: `encrypted_content` stays opaque. */
export function reasoningPart(item: Json): ReasoningPart {
  const id = str(item.id);
  const summary = summaryTexts(item);
  const encrypted = str(item.encrypted_content);
  return {
    type: 'reasoning',
    text: reasoningTexts(item).join(''),
    ...(id !== undefined ? { id } : {}),
    ...(summary.length > 0 ? { summary } : {}),
    ...(encrypted !== undefined ? { encrypted } : {}),
  };
}

/** An upstream `function_call` / `custom_tool_call` item → an IR tool call in the caller's terms. */
export function upstreamToolCall(item: Json, ctx: TranslateContext): ToolCallPart {
  const tool = callerTool(ctx, str(item.name) ?? '');
  const itemId = str(item.id);
  const namespace = str(item.namespace) ?? tool.namespace;
  let args: string;
  if (item.type === 'custom_tool_call') args = str(item.input) ?? '';
  else {
    args = str(item.arguments) ?? '';
    // A custom tool the upstream only knew as its one-parameter function stand-in.
    if (tool.kind === 'custom') args = argumentsToCustomInput(args);
  }
  return {
    type: 'tool_call',
    id: str(item.call_id) ?? itemId ?? '',
    name: tool.name,
    arguments: args,
    kind: item.type === 'custom_tool_call' ? 'custom' : tool.kind,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(itemId !== undefined ? { itemId } : {}),
  };
}

/** One output item → IR parts (a message gives one part per content part). */
export function decodeOutputItem(item: Json, ctx: TranslateContext): AssistantPart[] {
  switch (item.type) {
    case 'reasoning':
      return [reasoningPart(item)];
    case 'message':
      return objects(item.content).flatMap((c): AssistantPart[] => {
        if (c.type === 'output_text') {
          if (objects(c.annotations).length > 0) warn(ctx, 'annotations');
          return [{ type: 'text', text: str(c.text) ?? '' }];
        }
        if (c.type === 'refusal') return [{ type: 'refusal', text: str(c.refusal) ?? '' }];
        warn(ctx, `${String(c.type)} content`);
        return [];
      });
    case 'function_call':
    case 'custom_tool_call':
      return [upstreamToolCall(item, ctx)];
    default:
      warn(ctx, `${String(item.type)} output`);
      return [];
  }
}
