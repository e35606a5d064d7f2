/**
 * An Anthropic message (JSON answer) → IR response. Tool names map back to the
 * caller's (namespace, kind); a custom tool's stand-in input becomes its raw text.
 * @see README.md, "Translation" › "What maps to what"
 */
import { isObject, type Json } from '../../shallow.js';
import type * as Ir from '../../../translate/ir.js';
import { argumentsToCustomInput, objectToArguments } from '../../../translate/common/tool-args.js';
import { callerTool } from '../../../translate/common/tool-names.js';
import { objects, str, warn, warnDroppedBlock } from './read.js';
import { decodeStopReason } from './stop-reasons.js';
import { countsToUsage, readCounts } from './usage.js';

/** The IR form of a `tool_use` block's head: the caller's name, namespace and kind. */
export function toolCallHead(id: string, upstreamName: string, ctx: Ir.TranslateContext) {
  const tool = callerTool(ctx, upstreamName);
  return {
    id,
    name: tool.name,
    kind: tool.kind,
    ...(tool.namespace !== undefined ? { namespace: tool.namespace } : {}),
  };
}

/** Arguments JSON text as the caller expects it: custom tools get their raw input back. */
export const callerArguments = (kind: Ir.ToolKind, json: string): string => (kind === 'custom' ? argumentsToCustomInput(json) : json);

function decodeBlock(block: Json, ctx: Ir.TranslateContext): Ir.AssistantPart | undefined {
  switch (block.type) {
    case 'text':
      if (Array.isArray(block.citations) && block.citations.length > 0) warn(ctx, 'citations');
      return { type: 'text', text: str(block.text) ?? '' };
    case 'thinking':
      return { type: 'reasoning', text: str(block.thinking) ?? '', ...(typeof block.signature === 'string' ? { signature: block.signature } : {}) };
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redacted: str(block.data) ?? '' };
    case 'tool_use': {
      const head = toolCallHead(str(block.id) ?? '', str(block.name) ?? '', ctx);
      return { type: 'tool_call', ...head, arguments: callerArguments(head.kind, objectToArguments(block.input)) };
    }
    default:
      warnDroppedBlock(block, ctx);
      return undefined;
  }
}

export function decodeResponse(body: Json, ctx: Ir.TranslateContext): Ir.Response {
  const content = objects(body.content)
    .map((b) => decodeBlock(b, ctx))
    .filter((p): p is Ir.AssistantPart => p !== undefined);
  const stopSequence = str(body.stop_sequence);
  return {
    id: str(body.id) ?? ctx.newId('msg_'),
    model: str(body.model) ?? ctx.upstreamModel,
    // Anthropic messages carry no timestamp.
    created: Math.floor(ctx.now() / 1000),
    content,
    stopReason: decodeStopReason(body.stop_reason),
    ...(stopSequence !== undefined ? { stopSequence } : {}),
    usage: countsToUsage(readCounts(isObject(body.usage) ? body.usage : undefined)),
  };
}
