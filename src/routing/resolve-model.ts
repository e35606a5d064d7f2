/** Requested model name → its config entry: an exact name wins, then the most specific glob. */
import type { Config, ModelConfig, ProviderConfig } from '../config/types.js';
import { matchGlob } from '../config/glob.js';
import { notFound } from '../errors.js';

export interface Target {
  readonly model: ModelConfig;
  readonly provider: ProviderConfig;
  readonly upstreamModel: string;
}

export function findModel(config: Config, name: string): ModelConfig | undefined {
  return config.models.get(name) ?? config.modelGlobs.find((m) => matchGlob(m.pattern, name));
}

export function resolveModel(config: Config, name: string): Target {
  const model = findModel(config, name);
  if (!model) {
    throw notFound(`The model '${name}' does not exist on this gateway.`, 'model_not_found', 'model');
  }
  const provider = config.providers.get(model.provider);
  // The config rules guarantee the provider exists; this guards a hand-built Config.
  if (!provider) throw notFound(`The model '${name}' has no provider.`, 'model_not_found', 'model');
  return { model, provider, upstreamModel: model.upstreamModel ?? name };
}
