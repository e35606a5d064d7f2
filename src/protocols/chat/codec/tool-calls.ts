/**
 * A tool call as the upstream named it → as the caller knows it: the caller's
 * name and namespace back, and for custom tools (sent as a function stand-in)
 * the raw input out of the `{input}` arguments.
 */
import type { ToolCallPart, TranslateContext } from '../../../translate/ir.js';
import { argumentsToCustomInput } from '../../../translate/common/tool-args.js';
import { callerTool } from '../../../translate/common/tool-names.js';

export function callerToolCall(ctx: TranslateContext, id: string, upstreamName: string, args: string): ToolCallPart {
  const tool = callerTool(ctx, upstreamName);
  return {
    type: 'tool_call',
    id,
    name: tool.name,
    kind: tool.kind,
    ...(tool.namespace !== undefined ? { namespace: tool.namespace } : {}),
    arguments: tool.kind === 'custom' ? argumentsToCustomInput(args) : args,
  };
}
