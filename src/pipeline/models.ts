/**
 * `GET /v1/models`: the exact-name models a key's group may use, in OpenAI's
 * shape, or Anthropic's when the request carries `anthropic-version` (paged as Anthropic pages;
 * Claude Code's model discovery asks for `?limit=1000` and reads `id`, `display_name`, `description`),
 * or Google's when it authenticates the Google way or asks at `/v1beta/models` (paged as Google
 * pages, `pageSize` and `pageToken`; the Gemini CLI and the SDK read `name`, `displayName` and the limits).
 * Glob models are not listed: they have no single name.
 */
import { groupAllowsModel } from '../auth/authorize.js';
import type { Config, KeyGroupConfig, ModelConfig } from '../config/types.js';
import { perMillion, type Rate, ratesAt } from '../cost/price.js';
import { priceOf } from '../cost/prices.js';
import { invalidRequest, notFound } from '../errors.js';
import type { ErrorFamily } from '../protocols/types.js';
import { assertNever } from '../assert-never.js';
import type { RequestContext } from './context.js';
import { queryOf } from './endpoints.js';

/** The shape of the list is the family of the caller's protocol. */
export type ModelListShape = ErrorFamily;

export function visibleModels(config: Config, group: KeyGroupConfig): ModelConfig[] {
  return [...config.models.values()].filter((m) => groupAllowsModel(group, m.pattern));
}

function openaiModel(m: ModelConfig, createdSec: number, config: Config) {
  const pricing = openRouterPricing(config, m);
  return {
    id: m.pattern,
    object: 'model',
    created: createdSec,
    owned_by: m.provider,
    ...(m.description ? { description: m.description } : {}),
    ...(pricing ? { pricing } : {}),
  };
}

/**
 * The model's price as OpenRouter lists it in its OpenAI-shaped model list (USD per token, as decimal
 * strings), which clients that show prices already read; the SDKs keep unknown fields. The rates
 * in force now, and a long-context tier's base rate.
 */
function openRouterPricing(config: Config, m: ModelConfig) {
  const provider = config.providers.get(m.provider);
  const price = provider && priceOf(config, { model: m, provider, upstreamModel: m.upstreamModel ?? m.pattern });
  if (!price) return undefined;
  const r = ratesAt(price, Date.now());
  const perToken = (rate: Rate | undefined) => (rate === undefined ? undefined : (perMillion(rate, 0) / 1e6).toFixed(12).replace(/\.?0+$/, ''));
  return {
    prompt: perToken(r.input),
    completion: perToken(r.output),
    ...(r.cacheRead !== undefined ? { input_cache_read: perToken(r.cacheRead) } : {}),
    ...(r.cacheWrite !== undefined ? { input_cache_write: perToken(r.cacheWrite) } : {}),
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

/** What every model of the gateway answers to, by Gemini's method names. */
const GEMINI_METHODS = ['generateContent', 'streamGenerateContent', 'countTokens'] as const;

/**
 * Google's model object: its resource name is `models/{name}`. The token limits only when the config
 * gives them, as for Anthropic's.
 */
function googleModel(m: ModelConfig) {
  return {
    name: `models/${m.pattern}`,
    displayName: m.displayName ?? m.pattern,
    ...(m.description ? { description: m.description } : {}),
    ...(m.contextWindow !== undefined ? { inputTokenLimit: m.contextWindow } : {}),
    ...(m.maxOutputTokens !== undefined ? { outputTokenLimit: m.maxOutputTokens } : {}),
    supportedGenerationMethods: GEMINI_METHODS,
  };
}

/** Google's page size when the caller gives none, and the largest it takes. */
const GOOGLE_PAGE = 50;
const GOOGLE_MAX_PAGE = 1000;

/**
 * A Google page: `pageSize` models after `pageToken`, which is the name of the last model of the
 * page before (opaque to the caller, as Google's are). A page size above the largest is cut to it, as Google does.
 */
export function googlePage(models: readonly ModelConfig[], query: URLSearchParams): { page: ModelConfig[]; next: string | undefined } {
  const sizeText = query.get('pageSize');
  const size = sizeText === null || sizeText === '' ? GOOGLE_PAGE : Number(sizeText);
  if (!Number.isInteger(size) || size < 0) throw invalidRequest('pageSize: must be a non-negative integer.', 'pageSize');
  const limit = size === 0 ? GOOGLE_PAGE : Math.min(size, GOOGLE_MAX_PAGE);
  const token = query.get('pageToken');
  let begin = 0;
  if (token !== null && token !== '') {
    const i = models.findIndex((m) => m.pattern === token);
    if (i === -1) throw invalidRequest('pageToken: not a page of this list.', 'pageToken');
    begin = i + 1;
  }
  const page = models.slice(begin, begin + limit);
  return { page, next: begin + limit < models.length ? page.at(-1)?.pattern : undefined };
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
  const one = (m: ModelConfig) => {
    switch (shape) {
      case 'openai':
        return openaiModel(m, createdSec, ctx.state.config);
      case 'anthropic':
        return anthropicModel(m, createdIso);
      case 'google':
        return googleModel(m);
      default:
        return assertNever(shape);
    }
  };
  if (id !== undefined) {
    // Google's callers may name a model by its resource name.
    const name = shape === 'google' && id.startsWith('models/') ? id.slice('models/'.length) : id;
    const model = models.find((m) => m.pattern === name);
    if (!model) throw notFound(`The model '${name}' does not exist on this gateway.`, 'model_not_found');
    return one(model);
  }
  switch (shape) {
    case 'openai':
      // OpenAI's list has no paging.
      return { object: 'list', data: models.map(one) };
    case 'anthropic': {
      const { page, hasMore } = anthropicPage(models, queryOf(ctx.req.url));
      return {
        data: page.map(one),
        has_more: hasMore,
        first_id: page[0]?.pattern ?? null,
        last_id: page.at(-1)?.pattern ?? null,
      };
    }
    case 'google': {
      const { page, next } = googlePage(models, queryOf(ctx.req.url));
      return { models: page.map(one), ...(next !== undefined ? { nextPageToken: next } : {}) };
    }
    default:
      return assertNever(shape);
  }
}
