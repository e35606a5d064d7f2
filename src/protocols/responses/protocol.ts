/**
 * OpenAI Responses: `POST /v1/responses` and `/v1/responses/compact` (Codex's remote compaction), Bearer keys.
 * @see docs/protocols.md, "OpenAI Responses"
 */
import type { ProtocolModule } from '../protocol.js';
import type { Operation } from '../types.js';
import { STREAM_ENDS } from '../stream-ends.js';
import { responsesCodec } from './codec/codec.js';
import { inputTokensBody, readInputTokens } from './input-tokens.js';
import { createResponsesWatch, responsesUsage } from './usage.js';
import { inspectResponsesRequest } from './validate.js';

const UPSTREAM_PATHS: Record<Operation, readonly string[] | undefined> = {
  create: ['responses'],
  count_tokens: undefined,
  compact: ['responses', 'compact'],
};

export const responses: ProtocolModule = {
  id: 'responses',
  title: 'Responses',
  endpoints: [
    { method: 'POST', path: '/v1/responses', operation: 'create' },
    { method: 'POST', path: '/v1/responses/compact', operation: 'compact' },
  ],
  keyStyle: 'bearer',
  inspect: (call, limits) => inspectResponsesRequest(call.body, call.operation, limits),
  usage: responsesUsage,
  watchStream: createResponsesWatch,
  streamEnds: STREAM_ENDS.responses,
  errorFamily: 'openai',
  codec: responsesCodec,
  upstreamPath: (operation) => UPSTREAM_PATHS[operation],
  // OpenAI's input-token counter; the request as sent names its model already.
  counter: { ask: (create) => inputTokensBody(create), read: readInputTokens },
  upstreamHeaders: { forward: ['openai-beta'], defaults: {} },
  asks: { outputTokens: ['max_output_tokens'] },
  outputCapField: () => 'max_output_tokens',
  // Sent on through a translation, these would be dropped and the answer would silently lack what they ask.
  // (`previous_response_id` and `item_reference` items are served by the gateway's own store: src/responses-store.)
  stateful: {
    fields: [
      { field: 'conversation', set: (v) => v != null, needs: 'a conversation stored server-side' },
      { field: 'background', set: (v) => v === true, needs: 'the response run and stored server-side' },
    ],
    instead: 'Send the whole conversation in `input` (with store: false), as Codex does.',
  },
};
