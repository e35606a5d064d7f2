/**
 * A Chat Completions request → IR. What the IR cannot carry is listed in
 * `ctx.warnings` (n > 1, logprobs, penalties, audio output, predictions,
 * hosted web search, seed); pure telemetry (`store`, `service_tier`, ...) is
 * left out without a note. `prompt_cache_key` is kept for upstreams that take one.
 * @see README.md, "Translation" › "What maps to what"
 */
import { readStream, requireMessages, requireModel } from '../../shallow.js';
import type { ReasoningEffort, Request, ResponseFormat, TranslateContext } from '../../../translate/ir.js';
import { decodeMessages } from './decode-messages.js';
import { decodeToolChoice, decodeTools } from './decode-tools.js';
import { bool, isObject, num, obj, str, warn, type Json } from './read.js';

const EFFORTS = new Set<string>(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] satisfies ReasoningEffort[]);

function decodeResponseFormat(v: unknown): ResponseFormat | undefined {
  if (!isObject(v)) return undefined;
  if (v.type === 'text' || v.type === 'json_object') return { type: v.type };
  if (v.type !== 'json_schema') return undefined;
  // Nested in Chat (`json_schema: {...}`), flat in Responses.
  const js = obj(v.json_schema);
  const name = str(js.name);
  const description = str(js.description);
  const strict = bool(js.strict);
  return {
    type: 'json_schema',
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
    schema: obj(js.schema),
    ...(strict !== undefined ? { strict } : {}),
  };
}

function decodeStop(v: unknown): string[] | undefined {
  if (typeof v === 'string') return [v];
  if (!Array.isArray(v)) return undefined;
  const stop = v.filter((s): s is string => typeof s === 'string');
  return stop.length > 0 ? stop : undefined;
}

/** Only string values: OpenAI metadata is string pairs. */
function decodeMetadata(v: unknown): Record<string, string> | undefined {
  if (!isObject(v)) return undefined;
  const entries = Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string');
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** Parameters with no IR form: a note each when set to something that changes the answer. */
function warnUnsupported(body: Json, ctx: TranslateContext): void {
  if ((num(body.n) ?? 1) > 1) warn(ctx, 'n > 1');
  if (body.logprobs === true || num(body.top_logprobs) !== undefined) warn(ctx, 'logprobs');
  const modalities = Array.isArray(body.modalities) ? body.modalities : [];
  if (body.audio != null || modalities.includes('audio')) warn(ctx, 'audio output');
  if (body.prediction != null) warn(ctx, 'prediction');
  if (body.web_search_options != null) warn(ctx, 'web_search (hosted)');
  if (isObject(body.logit_bias) && Object.keys(body.logit_bias).length > 0) warn(ctx, 'logit_bias');
  if ((num(body.frequency_penalty) ?? 0) !== 0) warn(ctx, 'frequency_penalty');
  if ((num(body.presence_penalty) ?? 0) !== 0) warn(ctx, 'presence_penalty');
  if (num(body.seed) !== undefined) warn(ctx, 'seed');
  if (typeof body.verbosity === 'string') warn(ctx, 'verbosity');
}

export function decodeRequest(body: Json, ctx: TranslateContext): Request {
  const model = requireModel(body);
  const { system, messages } = decodeMessages(requireMessages(body), ctx);
  const tools = decodeTools(body, ctx);
  const toolChoice = decodeToolChoice(body, ctx);
  const parallelToolCalls = bool(body.parallel_tool_calls);
  const maxOutputTokens = num(body.max_completion_tokens) ?? num(body.max_tokens);
  const temperature = num(body.temperature);
  const topP = num(body.top_p);
  // Not an OpenAI parameter, but vLLM, llama.cpp and Ollama callers send it.
  const topK = num(body.top_k);
  const stop = decodeStop(body.stop);
  const effort = str(body.reasoning_effort);
  if (effort !== undefined && !EFFORTS.has(effort)) warn(ctx, `reasoning_effort ${effort}`);
  const responseFormat = decodeResponseFormat(body.response_format);
  const user = str(body.safety_identifier) ?? str(body.user);
  const metadata = decodeMetadata(body.metadata);
  const promptCacheKey = str(body.prompt_cache_key);
  warnUnsupported(body, ctx);

  return {
    model,
    system,
    messages,
    tools,
    ...(toolChoice !== undefined ? { toolChoice } : {}),
    ...(parallelToolCalls !== undefined ? { parallelToolCalls } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { topP } : {}),
    ...(topK !== undefined ? { topK } : {}),
    ...(stop !== undefined ? { stop } : {}),
    stream: readStream(body),
    ...(effort !== undefined && EFFORTS.has(effort) ? { reasoning: { effort: effort as ReasoningEffort } } : {}),
    ...(responseFormat !== undefined ? { responseFormat } : {}),
    ...(user !== undefined ? { user } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
    ...(promptCacheKey ? { promptCacheKey } : {}),
  };
}
