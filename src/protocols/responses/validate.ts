/**
 * Responses: the shallow checks and the features a request uses.
 * @see docs/protocols.md, "Responses request fields"
 */
import { invalidRequest } from '../../errors.js';
import type { Operation, RequestInfo, RequestLimits } from '../types.js';
import { checkCap, isObject, lengthOf, readStream, requireModel, requireObjectBody, countParts } from '../shallow.js';
import { featuresOf } from '../features.js';
import { RESPONSES_FEATURES } from './features.js';

/** Tools in a list, the tools nested in `namespace` tools counted one by one. */
function countTools(tools: unknown): number {
  if (!Array.isArray(tools)) return 0;
  let n = tools.length;
  for (const t of tools) if (isObject(t) && t.type === 'namespace') n += lengthOf(t.tools);
  return n;
}

export function inspectResponsesRequest(body: unknown, operation: Operation, limits: RequestLimits): RequestInfo {
  const json = requireObjectBody(body);
  const model = requireModel(json);
  const input = json.input;
  // A compaction may name its conversation by `previous_response_id` alone.
  if (input === undefined && operation !== 'compact') throw invalidRequest('Missing required parameter: `input`.', 'input');
  if (input !== undefined && typeof input !== 'string' && !Array.isArray(input)) {
    throw invalidRequest('`input` must be a string or an array of input items.', 'input');
  }
  // A compaction is answered in one piece: the endpoint has no stream.
  const stream = operation === 'compact' ? false : readStream(json);

  const items = Array.isArray(input) ? input : [];
  checkCap(Array.isArray(input) ? input.length : 1, limits, 'maxMessages', 'input', (n) => `\`input\` has ${n} items`);
  // Codex may carry tool definitions inside the input as an `additional_tools` item.
  let tools = countTools(json.tools);
  for (const i of items) {
    if (isObject(i) && i.type === 'additional_tools') tools += countTools(i.tools);
  }
  checkCap(tools, limits, 'maxTools', 'tools', (n) => `The request declares ${n} tools (\`tools\`, namespaces and \`additional_tools\` items together)`);
  // Parts sit in message content and in tool outputs (`function_call_output.output`).
  const parts = countParts(items, ['content', 'output']);
  checkCap(parts, limits, 'maxContentBlocks', 'input', (n) => `The input items hold ${n} content parts together`);

  const features = featuresOf(RESPONSES_FEATURES, json);
  return { model, stream, features };
}
