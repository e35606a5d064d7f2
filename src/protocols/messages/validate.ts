/**
 * Anthropic Messages (and count_tokens): the shallow checks and the features a request uses.
 * @see docs/protocols.md, "Messages request fields"
 */
import { invalidRequest } from '../../errors.js';
import type { Operation, RequestInfo, RequestLimits } from '../types.js';
import { checkCap, lengthOf, readStream, requireMessages, requireModel, requireObjectBody, countParts } from '../shallow.js';
import { featuresOf } from '../features.js';
import { MESSAGES_FEATURES } from './features.js';

export function inspectMessagesRequest(body: unknown, operation: Operation, limits: RequestLimits): RequestInfo {
  const json = requireObjectBody(body);
  const model = requireModel(json);
  const messages = requireMessages(json, limits);
  if (operation === 'create') {
    const maxTokens = json.max_tokens;
    if (maxTokens === undefined) throw invalidRequest('max_tokens: Field required', 'max_tokens');
    if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens <= 0) {
      throw invalidRequest('max_tokens: must be a positive integer', 'max_tokens');
    }
  }
  const stream = operation === 'create' && readStream(json);
  checkCap(lengthOf(json.tools), limits, 'maxTools', 'tools', (n) => `\`tools\` has ${n} entries`);
  // Blocks sit in message content and inside tool_result content, both counted; the system's blocks count too.
  const parts = countParts(messages, ['content']);
  checkCap(parts + lengthOf(json.system), limits, 'maxContentBlocks', 'messages', (n) => `The messages and \`system\` hold ${n} content blocks together`);

  // count_tokens asks for no feature: it only counts.
  const features = operation === 'create' ? featuresOf(MESSAGES_FEATURES, json) : [];
  return { model, stream, features };
}
