/**
 * The answer of a compaction the gateway performed itself, in the shape of `/v1/responses/compact`:
 * the user messages of the conversation (the most recent, within a budget), then the model's
 * summary as one more user message. Codex replaces its whole history with `output`; it keeps user
 * and assistant messages and compaction items from it, so plain messages serve where OpenAI
 * returns its opaque `compaction` item.
 */
import { GatewayError } from '../errors.js';
import { isObject, list, objects, str, type Json } from '../protocols/json.js';
import type { TranslateContext } from '../translate/ir.js';
import { conversation } from './summary-request.js';

/**
 * How many characters of user messages are kept (about as many tokens as Codex's own local
 * compaction keeps, at four characters a token): what the user asked stays word for word.
 */
export const USER_TEXT_BUDGET = 80_000;

/** Put before the summary, so the model reading it next knows what it is. */
export const SUMMARY_PREFIX =
  'The conversation so far was compacted: a model that worked on this task wrote the summary below for you. ' +
  'Carry on from it, without redoing what it says is done.\n\n';

/** The translated Responses answer to the summary request → the compaction answer. */
export function compactedAnswer(answer: Json, callerBody: Json, ctx: TranslateContext): Json {
  const summary = summaryText(answer);
  if (summary === '') {
    throw new GatewayError('upstream_error', `Model '${ctx.upstreamModel}' answered the compaction without a summary.`);
  }
  return {
    id: ctx.newId('resp_'),
    object: 'response.compaction',
    created_at: Math.floor(ctx.now() / 1000),
    output: [...retainedUserMessages(callerBody.input, USER_TEXT_BUDGET), userMessage(SUMMARY_PREFIX + summary)],
    ...(isObject(answer.usage) ? { usage: answer.usage } : {}),
  };
}

/** The text of the answer's assistant messages. */
function summaryText(answer: Json): string {
  const parts: string[] = [];
  for (const item of objects(answer.output)) {
    if (item.type !== 'message') continue;
    for (const part of objects(item.content)) if (part.type === 'output_text' && typeof part.text === 'string') parts.push(part.text);
  }
  return parts.join('\n').trim();
}

function userMessage(text: string): Json {
  return { type: 'message', role: 'user', content: [{ type: 'input_text', text }] };
}

/** The user messages, newest first until `budget` characters, the oldest kept cut to what is left; in their order. */
export function retainedUserMessages(input: unknown, budget: number): Json[] {
  const kept: Json[] = [];
  let left = budget;
  const items = conversation(input) as Json[];
  for (let i = items.length - 1; i >= 0 && left > 0; i--) {
    const item = items[i]!;
    if (item.role !== 'user' || (item.type !== undefined && item.type !== 'message')) continue;
    const text = messageText(item.content);
    if (text.length <= left) {
      kept.push({ type: 'message', role: 'user', content: contentParts(item.content) });
      left -= text.length;
    } else {
      kept.push(userMessage(text.slice(0, left)));
      left = 0;
    }
  }
  return kept.reverse();
}

function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  return objects(content)
    .map((part) => str(part.text) ?? '')
    .join('');
}

/** Content as a list of parts, which is the only form Codex reads back. */
function contentParts(content: unknown): unknown[] {
  return typeof content === 'string' ? [{ type: 'input_text', text: content }] : list(content);
}
