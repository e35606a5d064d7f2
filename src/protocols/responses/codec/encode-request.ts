/**
 * IR request → a Responses request body for OpenAI. The gateway keeps no
 * server-side state, so every request is `store: false`, and asks for
 * `reasoning.encrypted_content` (which a later turn replays) when reasoning is
 * requested or replayed: non-reasoning models such as gpt-4o answer 400 to that
 * `include` ("Encrypted content is not supported with this model"). Stop sequences and
 * `top_k` have no Responses form and are dropped with a warning; Anthropic
 * `cache_control` hints are dropped silently (OpenAI caches by itself).
 * @see README.md, "Translation" › "What maps to what"
 * @see README.md, "Translation" › "What is lossy, and how it is handled"
 */
import { openaiSafetyIdentifier } from '../../../translate/common/end-user-id.js';
import { openaiPromptCacheKey } from '../../../translate/common/prompt-cache-key.js';
import type { Json } from '../../shallow.js';
import type * as Ir from '../../../translate/ir.js';
import { encodeInput } from './encode-input.js';
import { encodeTool, encodeToolChoice } from './encode-tools.js';
import { warn } from './read.js';

/** Responses has no `max`; an Anthropic-only budget picks the nearest effort (a policy, documented in the README). */
function effortFor(reasoning: Ir.ReasoningRequest, ctx: Ir.TranslateContext): string | undefined {
  if (reasoning.effort === 'max') {
    warn(ctx, 'reasoning effort max as xhigh');
    return 'xhigh';
  }
  if (reasoning.effort !== undefined) return reasoning.effort;
  const budget = reasoning.budgetTokens;
  if (budget === undefined) return undefined;
  return budget < 4096 ? 'low' : budget < 16384 ? 'medium' : 'high';
}

function encodeReasoning(reasoning: Ir.ReasoningRequest, ctx: Ir.TranslateContext): Json {
  const effort = effortFor(reasoning, ctx);
  // A summary is what a caller can be shown of OpenAI's reasoning; ask for one unless reasoning is off.
  const summary = reasoning.summary ?? (effort === 'none' ? undefined : 'auto');
  return { ...(effort !== undefined ? { effort } : {}), ...(summary !== undefined ? { summary } : {}) };
}

function encodeFormat(format: Ir.ResponseFormat): Json {
  if (format.type !== 'json_schema') return { type: format.type };
  return {
    type: 'json_schema',
    name: format.name ?? 'response',
    schema: format.schema,
    ...(format.description !== undefined ? { description: format.description } : {}),
    ...(format.strict !== undefined ? { strict: format.strict } : {}),
  };
}

/** Reasoning asked for, or encrypted reasoning in the history: the upstream is a reasoning model. */
const wantsEncrypted = (request: Ir.Request): boolean =>
  (request.reasoning !== undefined && request.reasoning.effort !== 'none') ||
  request.messages.some((m) => m.role === 'assistant' && m.content.some((p) => p.type === 'reasoning' && p.encrypted !== undefined));

export function encodeRequest(request: Ir.Request, ctx: Ir.TranslateContext): Json {
  if (request.stop && request.stop.length > 0) warn(ctx, 'stop sequences');
  if (request.topK !== undefined) warn(ctx, 'top_k');
  const instructions = request.system.map((p) => p.text).join('\n\n');
  return {
    model: ctx.upstreamModel,
    ...(instructions !== '' ? { instructions } : {}),
    input: encodeInput(request.messages, ctx),
    ...(request.tools.length > 0 ? { tools: request.tools.map((t) => encodeTool(t, ctx)) } : {}),
    ...(request.toolChoice !== undefined ? { tool_choice: encodeToolChoice(request.toolChoice, request.tools, ctx) } : {}),
    ...(request.parallelToolCalls !== undefined ? { parallel_tool_calls: request.parallelToolCalls } : {}),
    ...(request.maxOutputTokens !== undefined ? { max_output_tokens: request.maxOutputTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(request.reasoning !== undefined ? { reasoning: encodeReasoning(request.reasoning, ctx) } : {}),
    ...(request.responseFormat !== undefined ? { text: { format: encodeFormat(request.responseFormat) } } : {}),
    ...(request.user !== undefined ? { safety_identifier: openaiSafetyIdentifier(request.user) } : {}),
    ...(request.metadata !== undefined ? { metadata: request.metadata } : {}),
    // As on the Chat path: to OpenAI only; compatible servers cache by prefix alone.
    ...(request.promptCacheKey !== undefined && ctx.upstreamDialect === 'openai'
      ? { prompt_cache_key: openaiPromptCacheKey(request.promptCacheKey) }
      : {}),
    store: false,
    ...(wantsEncrypted(request) ? { include: ['reasoning.encrypted_content'] } : {}),
    stream: request.stream,
  };
}
