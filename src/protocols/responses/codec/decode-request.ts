/**
 * A Responses request body → IR request. `instructions` come first in the
 * system prompt, then leading developer/system input messages. What the IR
 * cannot carry and matters is listed in `ctx.warnings`; the hints that ask
 * nothing of the model (`store`, `include`, `client_metadata`, `service_tier`,
 * `text.verbosity`, …) are not translated, and those whose drop matters are
 * listed (decode-hints.ts); `prompt_cache_key` is kept for upstreams that take one.
 * `previous_response_id` and `item_reference` items are resolved from the
 * gateway's store before translation (src/responses-store); `conversation` and
 * `background: true` are refused (routing/route.ts, `checkServable`).
 * @see README.md, "Translation" › "What maps to what"
 */
import { invalidRequest } from '../../../errors.js';
import { isObject, readStream, requireModel, type Json } from '../../shallow.js';
import type { Request, ResponseFormat, TranslateContext } from '../../../translate/ir.js';
import { warnDroppedHints } from './decode-hints.js';
import { decodeInput } from './decode-input.js';
import { decodeReasoning } from './decode-reasoning.js';
import { decodeToolChoice, decodeTools } from './decode-tools.js';
import { bool, num, str, warn } from './read.js';
import { isCompactionRequest, requireSeal } from './compaction.js';

/** `text.format` (flat, unlike Chat's `response_format`). */
function decodeFormat(text: unknown): ResponseFormat | undefined {
  const format = isObject(text) ? text.format : undefined;
  if (!isObject(format)) return undefined;
  if (format.type === 'text' || format.type === 'json_object') return { type: format.type };
  if (format.type === 'json_schema') {
    if (!isObject(format.schema)) throw invalidRequest('`text.format.schema` must be an object.', 'text.format.schema');
    const name = str(format.name);
    const description = str(format.description);
    const strict = bool(format.strict);
    return {
      type: 'json_schema',
      schema: format.schema,
      ...(name !== undefined ? { name } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(strict !== undefined ? { strict } : {}),
    };
  }
  throw invalidRequest('`text.format.type` must be text, json_object or json_schema.', 'text.format.type');
}

function decodeMetadata(metadata: unknown): Record<string, string> | undefined {
  if (!isObject(metadata)) return undefined;
  const entries = Object.entries(metadata).filter((e): e is [string, string] => typeof e[1] === 'string');
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

export function decodeRequest(body: Json, ctx: TranslateContext): Request {
  const model = requireModel(body);
  const compaction = isCompactionRequest(body);
  if (compaction) requireSeal(ctx);
  // A compaction's summary is asked for whole (its answer is one item, made once the text is known)
  // and without tool calls, as the gateway's own compaction asks it (src/compact/summary-request.ts).
  const stream = compaction ? false : readStream(body);
  if (body.instructions !== undefined && body.instructions !== null && typeof body.instructions !== 'string') {
    throw invalidRequest('`instructions` must be a string.', 'instructions');
  }
  const input = decodeInput(body.input, ctx);
  const instructions = str(body.instructions);
  const system = instructions ? [{ type: 'text' as const, text: instructions }, ...input.system] : input.system;

  let tools = [...decodeTools(body.tools, ctx, 'tools'), ...input.tools];
  const decoded = decodeToolChoice(body.tool_choice, ctx);
  // `allowed_tools` has no IR form; offering only the allowed tools says the same.
  if (decoded.allowed) tools = tools.filter((t) => decoded.allowed?.has(t.name));
  // The tools stay declared for the calls in the history; the summary must not call one.
  const choice = compaction && tools.length > 0 ? { type: 'none' as const } : decoded.choice;

  if (num(body.top_logprobs) !== undefined) warn(ctx, 'logprobs');
  if (num(body.max_tool_calls) !== undefined) warn(ctx, 'max_tool_calls');
  if (isObject(body.prompt)) warn(ctx, 'prompt template');
  warnDroppedHints(body, ctx);

  const parallelToolCalls = bool(body.parallel_tool_calls);
  const maxOutputTokens = num(body.max_output_tokens);
  const temperature = num(body.temperature);
  const topP = num(body.top_p);
  const reasoning = decodeReasoning(body.reasoning, input.effort);
  const responseFormat = decodeFormat(body.text);
  const user = str(body.safety_identifier) ?? str(body.user);
  const metadata = decodeMetadata(body.metadata);
  const promptCacheKey = str(body.prompt_cache_key);
  return {
    model,
    system,
    messages: input.messages,
    tools,
    stream,
    ...(choice !== undefined ? { toolChoice: choice } : {}),
    ...(parallelToolCalls !== undefined ? { parallelToolCalls } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { topP } : {}),
    ...(reasoning !== undefined ? { reasoning } : {}),
    ...(responseFormat !== undefined ? { responseFormat } : {}),
    ...(user !== undefined ? { user } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
    ...(promptCacheKey ? { promptCacheKey } : {}),
  };
}
