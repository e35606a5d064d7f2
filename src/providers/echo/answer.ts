/**
 * The echo's reply (reply.ts) in the IR: the response a model would give, and the stream events
 * it would send (text one word per delta, arguments in several pieces, so clients exercise
 * concatenation). The caller's codec turns either into its protocol (provider.ts).
 *
 * The response id is left empty, so each codec mints one in its protocol's style
 * (`chatcmpl-…`, `resp_…`, `msg_…`) from the context's id source.
 */
import type * as Ir from '../../translate/ir.js';
import { responseToEvents } from '../../translate/common/ir-stream.js';
import { splitJson, splitWords } from './deltas.js';
import type { EchoReply } from './reply.js';
import { estimateOutputTokens } from './tokens.js';

export interface AnswerFacts {
  /** Echoed from the request's `model`. */
  readonly model: string;
  /** Unix seconds. */
  readonly created: number;
  readonly inputTokens: number;
  /** A fresh tool-call id in the caller protocol's style; called only when the reply is a call. */
  readonly newCallId: () => string;
}

export function echoAnswer(reply: EchoReply, facts: AnswerFacts): Ir.Response {
  return {
    id: '',
    model: facts.model,
    created: facts.created,
    content: [replyPart(reply, facts)],
    stopReason: reply.kind === 'tool' ? 'tool_calls' : 'end',
    usage: { inputTokens: facts.inputTokens, outputTokens: estimateOutputTokens(reply) },
  };
}

function replyPart(reply: EchoReply, facts: AnswerFacts): Ir.TextPart | Ir.ToolCallPart {
  if (reply.kind === 'text') return { type: 'text', text: reply.text };
  return {
    type: 'tool_call',
    id: facts.newCallId(),
    name: reply.name,
    arguments: reply.arguments,
    kind: 'function',
    ...(reply.namespace === undefined ? {} : { namespace: reply.namespace }),
  };
}

/** The answer as a stream: each delta cut into pieces. */
export const answerEvents = (answer: Ir.Response): Ir.StreamEvent[] => responseToEvents(answer).flatMap(inPieces);

function inPieces(event: Ir.StreamEvent): Ir.StreamEvent[] {
  if (event.type !== 'block_delta') return [event];
  const { index, delta } = event;
  switch (delta.type) {
    case 'text':
      return splitWords(delta.text).map((text) => ({ type: 'block_delta', index, delta: { type: 'text', text } }));
    case 'arguments':
      return splitJson(delta.text).map((text) => ({ type: 'block_delta', index, delta: { type: 'arguments', text } }));
    default:
      return [event];
  }
}
