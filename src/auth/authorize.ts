/**
 * What a caller may use is the intersection of its key group and the model:
 * a group's "no" is 403 (ask for another key), a model's "no" is 400 (ask the
 * model for something it can do).
 */
import type { KeyGroupConfig, ModelConfig } from '../config/types.js';
import { matchGlob } from '../config/glob.js';
import { invalidRequest, permissionDenied } from '../errors.js';
import { protocols } from '../protocols/registry.js';
import type { Feature, Protocol } from '../protocols/types.js';

/** "the Responses API", "the Gemini API": a protocol as the refusals name it. */
const protocolName = (protocol: Protocol): string => `the ${protocols[protocol].title} API`;

const featureNames = {
  tools: 'tools',
  images: 'image input',
  streaming: 'streaming',
  reasoning: 'reasoning/thinking',
} as const satisfies Record<Feature, string>;

export const groupAllowsModel = (group: KeyGroupConfig, model: string): boolean =>
  group.models.some((pattern) => matchGlob(pattern, model));

/** Whether this group may use this model through this protocol, and the model is served through it: the request's features aside. */
export function authorizeModel(group: KeyGroupConfig, model: ModelConfig, requested: string, protocol: Protocol): void {
  if (!groupAllowsModel(group, requested)) {
    throw permissionDenied(`Key group '${group.name}' may not use model '${requested}'.`, 'model');
  }
  if (!group.protocols.has(protocol)) {
    throw permissionDenied(`Key group '${group.name}' may not use ${protocolName(protocol)}.`);
  }
  if (!model.protocols.has(protocol)) {
    throw invalidRequest(`Model '${requested}' is not available through ${protocolName(protocol)}.`, 'model');
  }
}

/**
 * Whether the group and the model allow the features a request asks for.
 * @param droppable features the model may lack without an error, because the request will be sent
 *   without them (a translated request drops a reasoning request the model cannot honour).
 */
export function authorizeFeatures(
  group: KeyGroupConfig,
  model: ModelConfig,
  requested: string,
  features: readonly Feature[],
  droppable: ReadonlySet<Feature>,
): void {
  for (const feature of features) {
    if (!group.features.has(feature)) {
      throw permissionDenied(
        `Key group '${group.name}' may not use ${featureNames[feature]} (requested with model '${requested}').`,
      );
    }
    if (!model.features.has(feature) && !droppable.has(feature)) {
      throw invalidRequest(`Model '${requested}' does not support ${featureNames[feature]}.`);
    }
  }
}
