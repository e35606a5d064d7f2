/**
 * Chat Completions: the shallow checks and the features a request uses.
 * @see docs/protocols.md, "Chat request fields"
 */
import type { Operation, RequestInfo, RequestLimits } from '../types.js';
import { checkCap, lengthOf, readStream, requireMessages, requireModel, requireObjectBody, countParts } from '../shallow.js';
import { featuresOf } from '../features.js';
import { CHAT_FEATURES } from './features.js';

export function inspectChatRequest(body: unknown, _operation: Operation, limits: RequestLimits): RequestInfo {
  const json = requireObjectBody(body);
  const model = requireModel(json);
  const messages = requireMessages(json, limits);
  const stream = readStream(json);
  // The legacy `functions` list is a list of tools too.
  const functions = lengthOf(json.functions);
  checkCap(lengthOf(json.tools) + functions, limits, 'maxTools', 'tools', (n) =>
    functions > 0 ? `\`tools\` and \`functions\` have ${n} entries together` : `\`tools\` has ${n} entries`,
  );
  const parts = countParts(messages, ['content']);
  checkCap(parts, limits, 'maxContentBlocks', 'messages', (n) => `The messages hold ${n} content parts together`);

  const features = featuresOf(CHAT_FEATURES, json);
  return { model, stream, features };
}
