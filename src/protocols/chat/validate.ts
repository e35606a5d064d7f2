/**
 * Chat Completions: the shallow checks and the features a request uses.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
import type { Feature, RequestInfo } from '../types.js';
import { hasPartOfType, nonEmptyArray, readStream, requireMessages, requireModel, requireObjectBody } from '../shallow.js';

const IMAGE_PARTS = new Set(['image_url']);

export function inspectChatRequest(body: unknown): RequestInfo {
  const json = requireObjectBody(body);
  const model = requireModel(json);
  const messages = requireMessages(json);
  const stream = readStream(json);

  const features: Feature[] = [];
  if (stream) features.push('streaming');
  if (nonEmptyArray(json.tools) || nonEmptyArray(json.functions)) features.push('tools');
  if (hasPartOfType(messages, IMAGE_PARTS, ['content'])) features.push('images');
  if (json.reasoning_effort != null && json.reasoning_effort !== 'none') features.push('reasoning');
  return { model, stream, features };
}
