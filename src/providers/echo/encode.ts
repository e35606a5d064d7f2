/**
 * The pure core by protocol: an echo reply (see `reply.ts`) as the protocol's JSON body or
 * as its list of SSE events.
 */
import type { Protocol } from '../../protocols/types.js';
import { chatCompletion, chatSse } from './chat.js';
import { messagesJson, messagesSse } from './messages.js';
import type { EchoMeta } from './meta.js';
import type { EchoReply } from './reply.js';
import { responsesJson, responsesSse } from './responses.js';
import type { SseEvent } from './sse.js';

interface Encoder {
  readonly json: (reply: EchoReply, body: unknown, meta: EchoMeta) => unknown;
  readonly sse: (reply: EchoReply, body: unknown, meta: EchoMeta) => SseEvent[];
}

const ENCODERS = {
  chat: { json: chatCompletion, sse: chatSse },
  responses: { json: responsesJson, sse: responsesSse },
  messages: { json: messagesJson, sse: messagesSse },
} as const satisfies Record<Protocol, Encoder>;

export const encodeJson = (protocol: Protocol, reply: EchoReply, body: unknown, meta: EchoMeta): unknown =>
  ENCODERS[protocol].json(reply, body, meta);

export const encodeSse = (protocol: Protocol, reply: EchoReply, body: unknown, meta: EchoMeta): SseEvent[] =>
  ENCODERS[protocol].sse(reply, body, meta);
