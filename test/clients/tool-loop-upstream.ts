/**
 * A fake upstream's side of a two-step tool loop, in whichever protocol it speaks: asked without a tool
 * result, the model calls the tool; asked with one, it answers in text. Each answer has its own usage,
 * so a client's per-step and total usage can be told apart.
 */
import type { ServerResponse } from 'node:http';
import type { Protocol } from '#src/protocols/types.js';
import { codecs } from '#src/translate/codecs.js';
import type * as Ir from '#src/translate/ir.js';
import type { Json } from '#src/translate/types.js';
import { contextFor } from '../conformance/context.js';
import { answerWith } from '../conformance/upstreams.js';

export const WEATHER_CALL = { id: 'call_weather_1', name: 'get_weather', input: { city: 'Paris' } } as const;
export const FINAL_TEXT = 'It is 18°C and sunny in Paris.';

const answer = (content: Ir.AssistantPart[], stopReason: Ir.StopReason, usage: Ir.Usage): Ir.Response => ({
  id: 'up-1',
  model: 'upstream-model',
  created: 1_700_000_000,
  content,
  stopReason,
  usage,
});

/**
 * The call alone, no text before it (earlier text that `@ai-sdk/openai`'s Responses model sends back as an
 * `item_reference` is tested in test/e2e/responses-store.test.ts).
 */
export const toolCallAnswer = answer(
  [{ type: 'tool_call', id: WEATHER_CALL.id, name: WEATHER_CALL.name, kind: 'function', arguments: JSON.stringify(WEATHER_CALL.input) }],
  'tool_calls',
  { inputTokens: 40, outputTokens: 9 },
);
export const finalAnswer = answer([{ type: 'text', text: FINAL_TEXT }], 'end', { inputTokens: 70, outputTokens: 12 });

/** The request an upstream of `protocol` received, read back into IR. */
export const receivedRequest = (protocol: Protocol, body: unknown): Ir.Request => codecs[protocol].decodeRequest(body as Json, contextFor(protocol));

const hasToolResult = (req: Ir.Request) => req.messages.some((m) => m.content.some((p) => p.type === 'tool_result'));

/** The fake upstream behaviour: the tool call first, the text once the tool's result came back. */
export function toolLoop(protocol: Protocol) {
  // The URL too: a Gemini call's model and stream flag are in its path.
  return (req: { json: unknown; url?: string }, res: ServerResponse) =>
    answerWith(protocol, hasToolResult(receivedRequest(protocol, req.json)) ? finalAnswer : toolCallAnswer)(req, res);
}
