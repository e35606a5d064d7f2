/**
 * OpenAI Responses: `POST /v1/responses`, Bearer keys.
 * @see docs/protocols.md, "OpenAI Responses"
 */
import type { ProtocolModule } from '../protocol.js';
import { STREAM_ENDS } from '../stream-ends.js';
import { responsesCodec } from './codec/codec.js';
import { createResponsesWatch, responsesUsage } from './usage.js';
import { inspectResponsesRequest } from './validate.js';

export const responses: ProtocolModule = {
  id: 'responses',
  title: 'Responses',
  endpoints: [{ method: 'POST', path: '/v1/responses', operation: 'create' }],
  keyStyle: 'bearer',
  inspect: (call, limits) => inspectResponsesRequest(call.body, call.operation, limits),
  usage: responsesUsage,
  watchStream: createResponsesWatch,
  streamEnds: STREAM_ENDS.responses,
  errorFamily: 'openai',
  codec: responsesCodec,
  upstreamPath: (operation) => (operation === 'create' ? ['responses'] : undefined),
  upstreamHeaders: { forward: ['openai-beta'], defaults: {} },
  asks: { outputTokens: ['max_output_tokens'] },
  outputCapField: () => 'max_output_tokens',
  // Sent on through a translation, these would be dropped and the answer would silently lack what they ask.
  stateful: {
    fields: [
      { field: 'previous_response_id', set: (v) => v != null, needs: 'the conversation stored server-side' },
      { field: 'conversation', set: (v) => v != null, needs: 'a conversation stored server-side' },
      { field: 'background', set: (v) => v === true, needs: 'the response run and stored server-side' },
    ],
    instead: 'Send the whole conversation in `input` (with store: false), as Codex does.',
  },
};
