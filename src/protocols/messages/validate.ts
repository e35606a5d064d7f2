/**
 * Anthropic Messages (and count_tokens): the shallow checks and the features a request uses.
 * @see https://docs.anthropic.com/en/api/messages
 */
import { invalidRequest } from '../../errors.js';
import type { Feature, RequestInfo } from '../types.js';
import { hasPartOfType, isObject, nonEmptyArray, readStream, requireMessages, requireModel, requireObjectBody } from '../shallow.js';

const IMAGE_BLOCKS = new Set(['image']);

export function inspectMessagesRequest(body: unknown, operation: 'create' | 'count_tokens'): RequestInfo {
  const json = requireObjectBody(body);
  const model = requireModel(json);
  const messages = requireMessages(json);
  if (operation === 'create') {
    const maxTokens = json.max_tokens;
    if (maxTokens === undefined) throw invalidRequest('max_tokens: Field required', 'max_tokens');
    if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens <= 0) {
      throw invalidRequest('max_tokens: must be a positive integer', 'max_tokens');
    }
  }
  const stream = operation === 'create' && readStream(json);

  const features: Feature[] = [];
  if (stream) features.push('streaming');
  if (nonEmptyArray(json.tools)) features.push('tools');
  // Images sit in message content and inside tool_result content.
  if (hasPartOfType(messages, IMAGE_BLOCKS, ['content'])) features.push('images');
  if (isObject(json.thinking) && json.thinking.type !== 'disabled') features.push('reasoning');
  return { model, stream, features };
}
