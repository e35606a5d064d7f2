/**
 * `GET /v1/models`: the exact-name models a key's group may use, in OpenAI's
 * shape, or Anthropic's when the request carries `anthropic-version`.
 * @see https://platform.openai.com/docs/api-reference/models/list, https://docs.anthropic.com/en/api/models-list
 */
import { groupAllowsModel } from '../auth/authorize.js';
import type { Config, KeyGroupConfig, ModelConfig } from '../config/types.js';
import { notFound } from '../errors.js';
import type { RequestContext } from './context.js';

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

function anthropicModel(m: ModelConfig, createdIso: string) {
  return {
    type: 'model',
    id: m.pattern,
    display_name: m.pattern,
    created_at: createdIso,
    ...(m.description ? { description: m.description } : {}),
  };
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
  if (shape === 'openai') return { object: 'list', data: models.map(one) };
  // Always has_more:false, or the Anthropic SDK's auto-pagination would loop.
  return {
    data: models.map(one),
    has_more: false,
    first_id: models[0]?.pattern ?? null,
    last_id: models.at(-1)?.pattern ?? null,
  };
}
