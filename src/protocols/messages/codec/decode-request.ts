/**
 * An Anthropic Messages request → IR request.
 * @see README.md, "Translation" › "What maps to what"
 * @see test/fixtures/clients/ (what Claude Code sends, recorded: claude-code-*.json)
 */
import { isObject, readStream, requireMessages, requireModel, type Json } from '../../shallow.js';
import { claudeCodeSessionId } from '../../../translate/common/prompt-cache-key.js';
import type * as Ir from '../../../translate/ir.js';
import { decodeMessages, decodeSystem } from './decode-content.js';
import { decodeToolChoice, decodeTools } from './decode-tools.js';
import { num, str, warn } from './read.js';
import { effortForBudget, isEffort } from './reasoning.js';

/**
 * Fields that change what the model does but have no IR form. Everything else unknown
 * (`service_tier`, `container` without server tools, `speed`, `inference_geo`, `diagnostics`,
 * top-level `cache_control`) only tunes Anthropic's own service and goes unmentioned, and so
 * does a `context_management` that clears nothing (see `clearsNothing`).
 */
const MEANINGFUL_UNTRANSLATED = ['context_management', 'safeguards', 'mcp_servers'] as const;

/**
 * Whether `context_management` leaves the context as it is: no edits, or only `clear_thinking`
 * edits that keep all thinking. Claude Code sends exactly that on every request
 * (`{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]}`); dropping it loses nothing,
 * so it is not worth a warning. Any other edit (`clear_tool_uses_…`, `clear_thinking` with a
 * turn count or the default) would change what the model sees.
 */
function clearsNothing(value: unknown): boolean {
  if (!isObject(value)) return false;
  const edits = value.edits ?? [];
  return (
    Array.isArray(edits) &&
    edits.every((e) => isObject(e) && typeof e.type === 'string' && e.type.startsWith('clear_thinking_') && e.keep === 'all')
  );
}

/**
 * `thinking` and `output_config.effort` → IR reasoning. `enabled` keeps its budget (and
 * derives an effort from it); `adaptive` (and `between_tools`) mean "think as needed" at the
 * stated effort or medium; `disabled`, like no `thinking`, asks for none: no reasoning field.
 */
function decodeReasoning(body: Json): Ir.ReasoningRequest | undefined {
  const thinking = isObject(body.thinking) ? body.thinking : undefined;
  const stated = isObject(body.output_config) && isEffort(body.output_config.effort) ? body.output_config.effort : undefined;
  switch (thinking?.type) {
    case 'enabled': {
      const budget = num(thinking.budget_tokens);
      if (budget === undefined) return { effort: stated ?? 'medium' };
      return { effort: stated ?? effortForBudget(budget), budgetTokens: budget };
    }
    case 'adaptive':
    case 'between_tools':
      return { effort: stated ?? 'medium' };
    case 'disabled':
      return undefined;
    default:
      // Effort without `thinking` still tells the model how much work to put in.
      return stated !== undefined ? { effort: stated } : undefined;
  }
}

function decodeResponseFormat(body: Json): Ir.ResponseFormat | undefined {
  const format = isObject(body.output_config) ? body.output_config.format : undefined;
  if (!isObject(format)) return undefined;
  if (format.type === 'json_schema' && isObject(format.schema)) return { type: 'json_schema', schema: format.schema };
  return undefined;
}

const stringList = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined;

export function decodeRequest(body: Json, ctx: Ir.TranslateContext): Ir.Request {
  const model = requireModel(body);
  const messages = decodeMessages(requireMessages(body), ctx);
  const tools = decodeTools(body.tools, body.messages, ctx);
  const { toolChoice, parallelToolCalls } = decodeToolChoice(body.tool_choice, tools, ctx);
  const maxOutputTokens = num(body.max_tokens);
  const temperature = num(body.temperature);
  const topP = num(body.top_p);
  const topK = num(body.top_k);
  const stop = stringList(body.stop_sequences);
  const reasoning = decodeReasoning(body);
  const responseFormat = decodeResponseFormat(body);
  const user = isObject(body.metadata) ? str(body.metadata.user_id) : undefined;
  // Anthropic caches by breakpoints and has no cache key; Claude Code's session id is one for upstreams that take it.
  const promptCacheKey = user !== undefined ? claudeCodeSessionId(user) : undefined;
  for (const field of MEANINGFUL_UNTRANSLATED) {
    if (body[field] === undefined || body[field] === null) continue;
    if (field === 'context_management' && clearsNothing(body[field])) continue;
    warn(ctx, field);
  }

  return {
    model,
    system: body.system === undefined || body.system === null ? [] : decodeSystem(body.system, ctx),
    messages,
    tools,
    ...(toolChoice !== undefined ? { toolChoice } : {}),
    ...(parallelToolCalls !== undefined ? { parallelToolCalls } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { topP } : {}),
    ...(topK !== undefined ? { topK } : {}),
    ...(stop !== undefined && stop.length > 0 ? { stop } : {}),
    stream: readStream(body),
    ...(reasoning !== undefined ? { reasoning } : {}),
    ...(responseFormat !== undefined ? { responseFormat } : {}),
    ...(user !== undefined ? { user } : {}),
    ...(promptCacheKey !== undefined ? { promptCacheKey } : {}),
  };
}
