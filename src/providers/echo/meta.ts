/**
 * Per-request values the encoders share: model, clock, ids and token estimates. Made once
 * per request by the provider (with injected clock and id source), passed in plain, so
 * the encoders stay pure.
 */
import type { Protocol } from '../../protocols/types.js';
import type { EchoReply } from './reply.js';

export interface EchoIds {
  /** The response object: `chatcmpl-echo…`, `resp_echo…` or `msg_echo…`. */
  readonly response: string;
  /** Responses only: the message output item (`msg_echo…`). */
  readonly message: string;
  /** The tool call: `call_echo…` (Chat id, Responses `call_id`) or `toolu_echo…` (Messages). */
  readonly call: string;
  /** Responses only: the function_call output item (`fc_echo…`). */
  readonly callItem: string;
}

export interface EchoMeta {
  /** Echoed from the request's `model`. */
  readonly model: string;
  /** Unix seconds. */
  readonly created: number;
  readonly inputTokens: number;
  readonly ids: EchoIds;
}

const ID_PREFIXES = {
  chat: { response: 'chatcmpl-echo', message: 'msg_echo', call: 'call_echo', callItem: 'fc_echo' },
  responses: { response: 'resp_echo', message: 'msg_echo', call: 'call_echo', callItem: 'fc_echo' },
  messages: { response: 'msg_echo', message: 'msg_echo', call: 'toolu_echo', callItem: 'fc_echo' },
} as const satisfies Record<Protocol, Record<keyof EchoIds, string>>;

export const mintIds = (protocol: Protocol, newId: (prefix: string) => string): EchoIds => {
  const prefixes = ID_PREFIXES[protocol];
  return {
    response: newId(prefixes.response),
    message: newId(prefixes.message),
    call: newId(prefixes.call),
    callItem: newId(prefixes.callItem),
  };
};

/** About four bytes per token, over the body as JSON (also the count_tokens answer). */
export const estimateInputTokens = (body: unknown): number =>
  Math.ceil(Buffer.byteLength(JSON.stringify(body) ?? '', 'utf8') / 4);

/** About four characters per token of what is sent back (text, or the arguments JSON); at least 1. */
export const estimateOutputTokens = (reply: EchoReply): number =>
  Math.max(1, Math.ceil((reply.kind === 'text' ? reply.text : reply.arguments).length / 4));
