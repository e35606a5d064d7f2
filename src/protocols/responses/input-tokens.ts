/**
 * The Responses API's input-token counter, `POST /v1/responses/input_tokens` (OpenAI's own; the
 * `openai` provider sends a Responses count there, providers/openai/http.ts): it takes a Responses
 * request's input fields and answers `{ object: "response.input_tokens", input_tokens }`. It
 * accepts only the fields that shape the input, so a translated request is cut down to those.
 */
import { isObject } from '../shallow.js';

/** The fields the counter takes; the rest of a Responses request (`stream`, `max_output_tokens`, `store`…) it refuses. */
const COUNTED_FIELDS = [
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'reasoning',
  'text',
  'truncation',
  'conversation',
  'previous_response_id',
] as const;

/** The counter's request: a Responses request's input fields. */
export function inputTokensBody(responsesBody: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of COUNTED_FIELDS) if (responsesBody[field] !== undefined) out[field] = responsesBody[field];
  return out;
}

/** The count in the counter's answer; undefined when the answer is not one. */
export function readInputTokens(answer: unknown): number | undefined {
  if (!isObject(answer)) return undefined;
  const n = answer.input_tokens;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
}
