/**
 * `GET /v1/models`: the exact-name models a key's group may use, in OpenAI's
 * shape, or Anthropic's when the request carries `anthropic-version` (paged as Anthropic pages;
 * Claude Code's model discovery asks for `?limit=1000` and reads `id`, `display_name`, `description`).
 * Glob models are not listed: they have no single name.
 * @see https://platform.openai.com/docs/api-reference/models/list, https://docs.anthropic.com/en/api/models-list
 */
import { groupAllowsModel } from '../auth/authorize.js';
import type { Config, KeyGroupConfig, ModelConfig } from '../config/types.js';
import { invalidRequest, notFound } from '../errors.js';
import type { RequestContext } from './context.js';
import { queryOf } from './endpoints.js';

export type ModelListShape = 'openai' | 'anthropic';

export function visibleModels(config: Config, group: KeyGroupConfig): ModelConfig[] {
  return [...config.models.values()].filter((m) => groupAllowsModel(group, m.pattern));
}

function openaiModel(m: ModelConfig, createdSec: number) {
  return {
    id: m.pattern,
    object: 'model',
    created: createdSec,
    owned_by: m.provider,
    ...(m.description ? { description: m.description } : {}),
  };
}

/**
 * Anthropic's model object. `max_input_tokens` (the context window) and `max_tokens` (the output
 * cap) only when the config gives them: a guessed window would make a client compact too late.
 */
function anthropicModel(m: ModelConfig, createdIso: string) {
  return {
    type: 'model',
    id: m.pattern,
    display_name: m.displayName ?? m.pattern,
    created_at: createdIso,
    ...(m.description ? { description: m.description } : {}),
    ...(m.contextWindow !== undefined ? { max_input_tokens: m.contextWindow } : {}),
    ...(m.maxOutputTokens !== undefined ? { max_tokens: m.maxOutputTokens } : {}),
  };
}

/** Anthropic's page size when the caller gives none, and the largest it accepts. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

/** The page of an Anthropic list: `limit`, and a cursor, `after_id` or `before_id`, as Anthropic's API takes them. */
export function anthropicPage(models: readonly ModelConfig[], query: URLSearchParams): { page: ModelConfig[]; hasMore: boolean } {
  const limitText = query.get('limit');
  const limit = limitText === null ? DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw invalidRequest(`limit: must be an integer from 1 to ${MAX_LIMIT}.`, 'limit');
  }
  const afterId = query.get('after_id');
  const beforeId = query.get('before_id');
  if (afterId !== null && beforeId !== null) throw invalidRequest('after_id and before_id cannot both be given.', 'after_id');
  const at = (id: string, param: string) => {
    const i = models.findIndex((m) => m.pattern === id);
    if (i === -1) throw invalidRequest(`${param}: no model '${id}' on this gateway.`, param);
    return i;
  };
  if (beforeId !== null) {
    // The page immediately before the cursor; has_more tells whether more lie further back.
    const end = at(beforeId, 'before_id');
    const begin = Math.max(0, end - limit);
    return { page: models.slice(begin, end), hasMore: begin > 0 };
  }
  const begin = afterId === null ? 0 : at(afterId, 'after_id') + 1;
  return { page: models.slice(begin, begin + limit), hasMore: begin + limit < models.length };
}

/** `id` undefined lists; otherwise retrieves one model (404 when the caller's key group cannot see it). */
export function modelsBody(ctx: RequestContext, shape: ModelListShape, id: string | undefined) {
  const models = visibleModels(ctx.state.config, ctx.group!);
  const createdSec = Math.floor(ctx.deps.startedAt / 1000);
  const createdIso = new Date(createdSec * 1000).toISOString();
  const one = (m: ModelConfig) => (shape === 'openai' ? openaiModel(m, createdSec) : anthropicModel(m, createdIso));
  if (id !== undefined) {
    const model = models.find((m) => m.pattern === id);
    if (!model) throw notFound(`The model '${id}' does not exist on this gateway.`, 'model_not_found');
    return one(model);
  }
  // OpenAI's list has no paging.
  if (shape === 'openai') return { object: 'list', data: models.map(one) };
  const { page, hasMore } = anthropicPage(models, queryOf(ctx.req.url));
  return {
    data: page.map(one),
    has_more: hasMore,
    first_id: page[0]?.pattern ?? null,
    last_id: page.at(-1)?.pattern ?? null,
  };
}
