/**
 * IR request → Anthropic Messages request body.
 * @see README.md, "Translation" › "What maps to what"
 * @see README.md, "Translation" › "What is lossy, and how it is handled"
 */
import { invalidRequest } from '../../../errors.js';
import type { Json } from '../../shallow.js';
import type * as Ir from '../../../translate/ir.js';
import { encodeConversation, type Turn } from './encode-messages.js';
import { encodeToolChoice, encodeTools } from './encode-tools.js';
import { warn } from './read.js';
import { effortForBudget, MIN_THINKING_BUDGET, THINKING_BUDGETS } from './reasoning.js';
import { anthropicEffort, thinkingStyleFor } from './thinking-style.js';

/**
 * `max_tokens` when neither the request nor the model's configuration gives one. Anthropic
 * requires the field; 8192 fits every current Claude model's output limit and stays well under
 * the SDKs' non-streaming ten-minute guard (about 21k tokens).
 */
export const DEFAULT_MAX_TOKENS = 8192;

/** Anthropic allows at most four `cache_control` breakpoints per request. */
const MAX_CACHE_BREAKPOINTS = 4;

/** What a request asks of Claude's thinking, in the form its model takes (see `thinking-style.ts`). */
type Thinking = { readonly type: 'enabled'; readonly budget: number } | { readonly type: 'adaptive'; readonly effort: ReturnType<typeof anthropicEffort> };

/** The thinking asked for, or undefined for none. A budget must be >= 1024 and below `max_tokens`. */
function thinkingFor(reasoning: Ir.ReasoningRequest | undefined, maxTokens: number, ctx: Ir.TranslateContext): Thinking | undefined {
  if (!reasoning || reasoning.effort === 'none') return undefined;
  if (reasoning.effort === undefined && reasoning.budgetTokens === undefined) return undefined;
  if ((ctx.thinkingStyle ?? thinkingStyleFor(ctx.upstreamModel)) === 'adaptive') {
    const effort = reasoning.effort ?? effortForBudget(reasoning.budgetTokens ?? THINKING_BUDGETS.medium);
    if (effort === 'none') return undefined;
    if (effort === 'xhigh') warn(ctx, 'reasoning effort xhigh as high');
    return { type: 'adaptive', effort: anthropicEffort(effort) };
  }
  const wanted = reasoning.budgetTokens ?? THINKING_BUDGETS[reasoning.effort ?? 'medium'];
  if (maxTokens <= MIN_THINKING_BUDGET) {
    warn(ctx, 'thinking (max_tokens too small)');
    return undefined;
  }
  return { type: 'enabled', budget: Math.max(MIN_THINKING_BUDGET, Math.min(wanted, maxTokens - 1)) };
}

/** The request's `thinking` field and what it adds to `output_config`. */
function thinkingFields(thinking: Thinking | undefined): { thinking?: Json; effort?: Json } {
  if (thinking === undefined) return {};
  if (thinking.type === 'enabled') return { thinking: { type: 'enabled', budget_tokens: thinking.budget } };
  return { thinking: { type: 'adaptive' }, effort: { effort: thinking.effort } };
}

/**
 * Anthropic refuses thinking with a forced tool choice, and requires the last assistant turn of a
 * tool loop to start with a (signed) thinking block: history from another provider has none.
 */
function thinkingConflict(choice: Json | undefined, messages: readonly Turn[]): string | undefined {
  if (choice?.type === 'any' || choice?.type === 'tool') return 'thinking (forced tool choice)';
  const lastAssistant = messages.findLast((t) => t.role === 'assistant');
  const first = lastAssistant?.content[0];
  const unsigned = first !== undefined && first.type !== 'thinking' && first.type !== 'redacted_thinking';
  if (unsigned && lastAssistant?.content.some((b) => b.type === 'tool_use')) return 'thinking (unsigned tool history)';
  return undefined;
}

/** Every block carrying `cache_control`, in prompt order (tools, system, messages; nested content before its block). */
function cacheHolders(tools: readonly Json[], system: readonly Json[], messages: readonly Turn[]): Json[] {
  const holders: Json[] = [];
  const visit = (block: Json) => {
    if (Array.isArray(block.content)) for (const inner of block.content as Json[]) visit(inner);
    if (block.cache_control !== undefined) holders.push(block);
  };
  [...tools, ...system, ...messages.flatMap((t) => t.content)].forEach(visit);
  return holders;
}

/** Past four breakpoints Anthropic answers 400; the latest ones cover the longest prefix, so the earliest go. */
function capCacheBreakpoints(tools: readonly Json[], system: readonly Json[], messages: readonly Turn[], ctx: Ir.TranslateContext): void {
  const holders = cacheHolders(tools, system, messages);
  if (holders.length <= MAX_CACHE_BREAKPOINTS) return;
  warn(ctx, 'cache breakpoints over 4');
  for (const block of holders.slice(0, holders.length - MAX_CACHE_BREAKPOINTS)) delete block.cache_control;
}

/**
 * OpenAI caches prompt prefixes by itself, so its callers (Codex above all, which resends the
 * whole conversation every turn) never mark breakpoints. Anthropic caches only at marked ones:
 * without them every turn would pay the full input price. So a request from an OpenAI-protocol
 * caller that carries no hints gets the usual three: the end of the system prompt, of the tool
 * definitions, and of the conversation so far. Prompts under the model's minimum are simply
 * not cached; the markers cost nothing.
 */
function addCacheBreakpoints(tools: readonly Json[], system: readonly Json[], messages: readonly Turn[], ctx: Ir.TranslateContext): void {
  if (ctx.caller === 'messages' || cacheHolders(tools, system, messages).length > 0) return;
  const lastBlock = messages.at(-1)?.content.at(-1);
  for (const block of [system.at(-1), tools.at(-1), lastBlock]) {
    // Thinking blocks cannot carry cache_control; everything else the encoder emits can.
    if (block !== undefined && block.type !== 'thinking' && block.type !== 'redacted_thinking') block.cache_control = { type: 'ephemeral' };
  }
}

interface Sampling {
  temperature?: number;
  top_p?: number;
  top_k?: number;
}

/** Anthropic's temperature range is 0–1 (OpenAI's 0–2); newer models reject temperature and top_p together. */
function sampling(request: Ir.Request, thinking: boolean, ctx: Ir.TranslateContext): Sampling {
  const out: Sampling = {};
  if (request.temperature !== undefined) {
    const clamped = Math.min(1, Math.max(0, request.temperature));
    if (clamped !== request.temperature) warn(ctx, 'temperature clamped');
    // With thinking on, Anthropic accepts only temperature 1.
    if (thinking && clamped !== 1) warn(ctx, 'temperature (thinking on)');
    else out.temperature = clamped;
  }
  if (request.topP !== undefined) {
    if (out.temperature !== undefined) warn(ctx, 'top_p (temperature set)');
    else if (thinking && request.topP < 0.95) warn(ctx, 'top_p (thinking on)');
    else out.top_p = request.topP;
  }
  if (request.topK !== undefined) {
    if (thinking) warn(ctx, 'top_k (thinking on)');
    else out.top_k = request.topK;
  }
  return out;
}

function outputConfig(format: Ir.ResponseFormat | undefined, ctx: Ir.TranslateContext): Json | undefined {
  if (format?.type === 'json_schema') return { format: { type: 'json_schema', schema: format.schema } };
  if (format?.type === 'json_object') warn(ctx, 'json_object response format');
  return undefined;
}

/**
 * `max_tokens`, which Anthropic requires and which includes thinking. When the caller set no limit,
 * the default leaves room for an answer after the effort's thinking budget (capped by the model's
 * configured limit); a caller's own limit is kept and the budget fits under it instead.
 */
function maxTokensFor(request: Ir.Request, ctx: Ir.TranslateContext): number {
  if (request.maxOutputTokens !== undefined) return request.maxOutputTokens;
  const effort = request.reasoning?.effort;
  const budget = request.reasoning?.budgetTokens ?? (effort && effort !== 'none' ? THINKING_BUDGETS[effort] : 0);
  const wanted = budget + DEFAULT_MAX_TOKENS;
  return ctx.maxOutputTokens !== undefined ? Math.min(wanted, ctx.maxOutputTokens) : wanted;
}

export function encodeRequest(request: Ir.Request, ctx: Ir.TranslateContext): Json {
  const maxTokens = maxTokensFor(request, ctx);
  const { system, messages } = encodeConversation(request, ctx);
  if (messages.length === 0) throw invalidRequest('Anthropic needs at least one user or assistant message with content.', 'messages');
  const tools = encodeTools(request.tools, ctx);
  const toolChoice = encodeToolChoice(request, ctx);
  let thinking = thinkingFor(request.reasoning, maxTokens, ctx);
  const conflict = thinking !== undefined ? thinkingConflict(toolChoice, messages) : undefined;
  if (conflict !== undefined) {
    warn(ctx, conflict);
    thinking = undefined;
  }
  const fields = thinkingFields(thinking);
  addCacheBreakpoints(tools, system, messages, ctx);
  capCacheBreakpoints(tools, system, messages, ctx);
  const format = outputConfig(request.responseFormat, ctx);
  const config = format !== undefined || fields.effort !== undefined ? { ...format, ...fields.effort } : undefined;
  if (request.metadata !== undefined && Object.keys(request.metadata).length > 0) warn(ctx, 'metadata');

  return {
    model: ctx.upstreamModel,
    max_tokens: maxTokens,
    ...(system.length > 0 ? { system } : {}),
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
    ...sampling(request, thinking !== undefined, ctx),
    ...(request.stop !== undefined && request.stop.length > 0 ? { stop_sequences: request.stop } : {}),
    ...(fields.thinking !== undefined ? { thinking: fields.thinking } : {}),
    ...(config !== undefined ? { output_config: config } : {}),
    ...(request.user !== undefined ? { metadata: { user_id: request.user } } : {}),
    ...(request.stream ? { stream: true } : {}),
  };
}
