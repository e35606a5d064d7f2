/**
 * IR → a `chat.completion` for a Chat caller.
 * - Reasoning goes in `message.reasoning_content`, the field DeepSeek and vLLM
 *   made common; clients that do not know it ignore it. It never joins `content`.
 *   What that text cannot hold goes in `reasoning_details`: OpenRouter's own
 *   entries as they came, or the gateway's sealed ones (sealed-details.ts).
 * - Text parts are concatenated without a separator, as a stream client
 *   concatenates deltas, so stream and non-stream answers agree.
 * - Calls of custom-kind tools come out as function calls with `{input}`
 *   arguments: Chat streams can only carry function calls.
 * @see src/protocols/chat/codec/sdk.test.ts (the official SDK reads what this writes)
 */
import { callerResponseId } from '../../../translate/common/ids.js';
import type { AssistantPart, Response, ToolCallPart, TranslateContext } from '../../../translate/ir.js';
import { customInputToArguments } from '../../../translate/common/tool-args.js';
import { reasoningText } from './encode-messages.js';
import { finishReasonToChat } from './finish-reasons.js';
import { detailsOf } from './sealed-details.js';
import type { Json } from './read.js';
import { usageToChat } from './usage.js';

/** What a Chat caller gets as a call's arguments: JSON text, custom input wrapped as the stand-in's. */
export const callArguments = (call: Pick<ToolCallPart, 'kind' | 'arguments'>): string =>
  call.kind === 'custom' ? customInputToArguments(call.arguments) : call.arguments;

/** All reasoning shown as one text: parts (and a part's summaries) a blank line apart. */
export const joinReasoning = (parts: readonly AssistantPart[]): string =>
  parts
    .flatMap((p) => (p.type === 'reasoning' ? [reasoningText(p)] : []))
    .filter((t) => t !== '')
    .join('\n\n');

export const encodeResponse = (response: Response, ctx: TranslateContext): Json => buildCompletion(response, ctx);

/** The completion with its type kept, so `sdk-types.test-d.ts` files can hold it against the SDK's. */
export function buildCompletion(response: Response, ctx: TranslateContext) {
  const text = response.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  const refusal = response.content.flatMap((p) => (p.type === 'refusal' ? [p.text] : [])).join('');
  const reasoning = joinReasoning(response.content);
  const details = detailsOf(response.content, ctx);
  const calls = response.content.flatMap((p) =>
    p.type === 'tool_call' ? [{ id: p.id, type: 'function' as const, function: { name: p.name, arguments: callArguments(p) } }] : [],
  );
  return {
    id: callerResponseId('chatcmpl-', response.id, ctx),
    object: 'chat.completion' as const,
    created: response.created,
    model: ctx.requestedModel,
    choices: [
      {
        index: 0 as const,
        message: {
          role: 'assistant' as const,
          content: text !== '' ? text : null,
          refusal: refusal !== '' ? refusal : null,
          ...(reasoning !== '' ? { reasoning_content: reasoning } : {}),
          // OpenRouter-style clients (its SDK, the AI SDK provider) send these back on the next turn.
          ...(details.length > 0 ? { reasoning_details: details } : {}),
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        finish_reason: finishReasonToChat(response.stopReason),
        logprobs: null,
      },
    ],
    usage: usageToChat(response.usage),
  };
}
