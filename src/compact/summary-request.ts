/**
 * A compaction on a route whose model is behind another protocol: the gateway asks the model
 * itself for a handoff summary. The caller's `/v1/responses/compact` body becomes an ordinary
 * Responses request (the conversation, then an instruction to summarise it), which the route's
 * translator then sends upstream like any other.
 */
import { isObject, type Json } from '../protocols/json.js';

/**
 * What the summary must hold so another model can pick the work up with no history but the
 * retained user messages: the same ground Codex's own local compaction asks its model to cover.
 */
export const SUMMARY_INSTRUCTION = [
  'Stop here and compact this conversation: write a handoff summary for another model that will carry on',
  'the work with none of the history above, only this summary and the user messages.',
  'Cover:',
  "- the user's goal, and the constraints and preferences they stated;",
  '- what has been done so far and the decisions taken, with their reasons;',
  '- the state that matters now: files, commands, tools, errors and results, by name;',
  '- what is left to do, as concrete next steps;',
  '- any data, examples or references the next step needs.',
  'Be brief and structured. Answer with the summary only, and call no tool.',
].join('\n');

/**
 * The fields of a compaction request that go on into the summary request; the rest
 * (`service_tier`, `text`, `prompt_cache_key`, …) go too, and the codec decides about each as for any request.
 */
const NOT_CARRIED = new Set(['input', 'stream', 'tool_choice', 'store', 'previous_response_id']);

/** The caller's compaction body → the Responses request that asks the model for the summary. */
export function summaryRequest(body: Json): Json {
  const carried = Object.fromEntries(Object.entries(body).filter(([field]) => !NOT_CARRIED.has(field)));
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  return {
    ...carried,
    input: [...conversation(body.input), { type: 'message', role: 'user', content: [{ type: 'input_text', text: SUMMARY_INSTRUCTION }] }],
    // The tools stay declared because the history holds calls to them (Anthropic refuses tool
    // blocks without their tools); the summary itself must not call one.
    ...(hasTools ? { tool_choice: 'none' } : {}),
    stream: false,
    store: false,
  };
}

/** `input` as a list of items (a plain string is one user message). */
export function conversation(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return Array.isArray(input) ? input.filter((item) => isObject(item)) : [];
}
