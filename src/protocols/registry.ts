/** Per-protocol knowledge the request pipeline needs, in one typed table. */
import { inspectChatRequest } from './chat/validate.js';
import { chatUsage, createChatWatch } from './chat/usage.js';
import { inspectMessagesRequest } from './messages/validate.js';
import { createMessagesWatch, messagesUsage } from './messages/usage.js';
import { inspectResponsesRequest } from './responses/validate.js';
import { createResponsesWatch, responsesUsage } from './responses/usage.js';
import type { StreamWatch } from './stream-watch.js';
import type { Protocol, RequestInfo, RequestLimits, Usage } from './types.js';

export interface ProtocolSpec {
  /** Shallow validation, and the request's size against `limits`; throws GatewayError naming the offending field. */
  inspect(body: unknown, operation: 'create' | 'count_tokens', limits: RequestLimits): RequestInfo;
  /** Usage of a complete (non-streaming) response body. */
  usage(json: unknown): Usage;
  watchStream(): StreamWatch;
}

export const protocolSpecs = {
  chat: { inspect: inspectChatRequest, usage: chatUsage, watchStream: createChatWatch },
  responses: { inspect: inspectResponsesRequest, usage: responsesUsage, watchStream: createResponsesWatch },
  messages: { inspect: inspectMessagesRequest, usage: messagesUsage, watchStream: createMessagesWatch },
} as const satisfies Record<Protocol, ProtocolSpec>;
