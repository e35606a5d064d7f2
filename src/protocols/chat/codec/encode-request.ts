/**
 * IR → a Chat Completions request for OpenAI (`openai` dialect) or an
 * OpenAI-compatible server such as Ollama, vLLM, LM Studio, llama.cpp,
 * OpenRouter or DeepSeek (`compatible`: the older, more widely accepted fields).
 * @see README.md, "Translation" › "What maps to what"
 */
import type { ReasoningEffort, ReasoningRequest, Request, ResponseFormat, TranslateContext } from '../../../translate/ir.js';
import { openaiSafetyIdentifier } from '../../../translate/common/end-user-id.js';
import { openaiPromptCacheKey } from '../../../translate/common/prompt-cache-key.js';
import { encodeMessages } from './encode-messages.js';
import { encodeToolChoice, encodeTools } from './encode-tools.js';
import { warn, type Json } from './read.js';

/** OpenAI's documented limit; compatible servers take more, so only OpenAI gets the cut. */
const MAX_STOP = 4;

/** A thinking budget with no effort (Anthropic callers) → the effort level nearest to it. */
function effortOf(reasoning: ReasoningRequest): ReasoningEffort | undefined {
  if (reasoning.effort !== undefined) return reasoning.effort;
  const budget = reasoning.budgetTokens;
  if (budget === undefined) return undefined;
  return budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high';
}

function encodeResponseFormat(format: ResponseFormat): Json {
  if (format.type !== 'json_schema') return { type: format.type };
  return {
    type: 'json_schema',
    json_schema: {
      // `name` is required by Chat; Anthropic-sourced schemas have none.
      name: format.name ?? 'response',
      ...(format.description !== undefined ? { description: format.description } : {}),
      schema: format.schema,
      ...(format.strict !== undefined ? { strict: format.strict } : {}),
    },
  };
}

function encodeStop(stop: readonly string[], compatible: boolean, ctx: TranslateContext): string[] {
  if (compatible || stop.length <= MAX_STOP) return [...stop];
  warn(ctx, 'stop sequences beyond 4');
  return stop.slice(0, MAX_STOP);
}

export function encodeRequest(request: Request, ctx: TranslateContext): Json {
  const compatible = ctx.upstreamDialect !== 'openai';
  const enc = { ctx, compatible };
  const hasTools = request.tools.length > 0;
  const effort = request.reasoning ? effortOf(request.reasoning) : undefined;
  if (request.reasoning?.summary !== undefined) warn(ctx, 'reasoning summary');
  if (request.topK !== undefined && !compatible) warn(ctx, 'top_k');
  // OpenAI rejects `metadata` unless `store` is on, and storing is not ours to switch on.
  if (request.metadata !== undefined) warn(ctx, 'metadata');
  const stop = request.stop && request.stop.length > 0 ? encodeStop(request.stop, compatible, ctx) : undefined;

  return {
    model: ctx.upstreamModel,
    messages: encodeMessages(request.system, request.messages, enc),
    // OpenAI rejects tool_choice and parallel_tool_calls without tools.
    ...(hasTools ? { tools: encodeTools(request.tools, ctx) } : {}),
    ...(hasTools && request.toolChoice ? { tool_choice: encodeToolChoice(request.toolChoice, request.tools, ctx) } : {}),
    ...(hasTools && request.parallelToolCalls !== undefined ? { parallel_tool_calls: request.parallelToolCalls } : {}),
    ...(request.maxOutputTokens !== undefined
      ? { [compatible ? 'max_tokens' : 'max_completion_tokens']: request.maxOutputTokens }
      : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(request.topK !== undefined && compatible ? { top_k: request.topK } : {}),
    ...(stop !== undefined ? { stop } : {}),
    ...(effort !== undefined ? { reasoning_effort: effort } : {}),
    ...(request.responseFormat !== undefined ? { response_format: encodeResponseFormat(request.responseFormat) } : {}),
    // OpenAI rejects a safety_identifier over 64 characters (Claude Code's user_id is longer); compatible servers take any `user`.
    ...(request.user !== undefined
      ? compatible
        ? { user: request.user }
        : { safety_identifier: openaiSafetyIdentifier(request.user) }
      : {}),
    // OpenAI sends requests with one key to one prompt cache. Compatible servers cache by prefix
    // alone, and the strict ones among them refuse a field they do not know.
    ...(request.promptCacheKey !== undefined && !compatible ? { prompt_cache_key: openaiPromptCacheKey(request.promptCacheKey) } : {}),
    stream: request.stream,
    // Without it a Chat stream carries no usage at all.
    ...(request.stream ? { stream_options: { include_usage: true } } : {}),
  };
}
