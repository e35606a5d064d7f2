/**
 * Gemini's body as Vertex AI takes it. A create call's body is the Gemini API's as it is. A count's
 * is not: Vertex's `countTokens` takes the request's `contents`, `systemInstruction`, `tools` and
 * `generationConfig` at its top level, where the Gemini API takes the request wrapped whole in
 * `generateContentRequest` (with a `models/…` name Vertex would refuse).
 */
import { field } from '../../protocols/gemini/fields.js';
import { isObject } from '../../protocols/shallow.js';
import type { EnvelopeCall, Enveloped } from '../kind.js';

/** What Vertex's counter reads; the rest of a request (tool config, safety settings) does not change a count. */
const COUNTED = ['contents', 'systemInstruction', 'tools', 'generationConfig'] as const;

export function geminiEnvelope(call: EnvelopeCall): Enveloped | undefined {
  if (call.operation !== 'count_tokens') return undefined;
  const wrapped = field(call.json, 'generateContentRequest');
  const request = isObject(wrapped) ? wrapped : call.json;
  const json: Record<string, unknown> = {};
  for (const name of COUNTED) {
    const value = field(request, name);
    if (value !== undefined) json[name] = value;
  }
  return { json, headers: { ...call.headers }, dropped: [] };
}
