/**
 * Responses: the shallow checks and the features a request uses.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
import { invalidRequest } from '../../errors.js';
import type { Feature, RequestInfo } from '../types.js';
import { hasPartOfType, isObject, nonEmptyArray, readStream, requireModel, requireObjectBody } from '../shallow.js';

const IMAGE_PARTS = new Set(['input_image']);

export function inspectResponsesRequest(body: unknown): RequestInfo {
  const json = requireObjectBody(body);
  const model = requireModel(json);
  const input = json.input;
  if (input === undefined) throw invalidRequest('Missing required parameter: `input`.', 'input');
  if (typeof input !== 'string' && !Array.isArray(input)) {
    throw invalidRequest('`input` must be a string or an array of input items.', 'input');
  }
  const stream = readStream(json);

  const items = Array.isArray(input) ? input : [];
  const features: Feature[] = [];
  if (stream) features.push('streaming');
  // Codex may carry tool definitions inside the input as an `additional_tools` item.
  if (nonEmptyArray(json.tools) || items.some((i) => isObject(i) && i.type === 'additional_tools')) {
    features.push('tools');
  }
  // Images sit in message content and in tool outputs (`function_call_output.output`).
  if (hasPartOfType(items, IMAGE_PARTS, ['content', 'output'])) features.push('images');
  const reasoning = json.reasoning;
  if (isObject(reasoning) && reasoning.effort !== 'none') features.push('reasoning');
  return { model, stream, features };
}
