/**
 * OpenAI Chat Completions: `POST /v1/chat/completions`, Bearer keys.
 * @see docs/protocols.md, "Chat Completions"
 */
import type { ProtocolModule } from '../protocol.js';
import { STREAM_ENDS } from '../stream-ends.js';
import { chatCodec } from './codec/codec.js';
import { chatUsage, createChatWatch } from './usage.js';
import { inspectChatRequest } from './validate.js';

export const chat: ProtocolModule = {
  id: 'chat',
  title: 'Chat Completions',
  endpoints: [{ method: 'POST', path: '/v1/chat/completions', operation: 'create' }],
  keyStyle: 'bearer',
  inspect: (call, limits) => inspectChatRequest(call.body, call.operation, limits),
  usage: chatUsage,
  watchStream: createChatWatch,
  streamEnds: STREAM_ENDS.chat,
  errorFamily: 'openai',
  codec: chatCodec,
  upstreamPath: (operation) => (operation === 'create' ? ['chat', 'completions'] : undefined),
  upstreamHeaders: { forward: ['openai-beta'], defaults: {} },
  asks: { outputTokens: ['max_completion_tokens', 'max_tokens'], choices: ['n'] },
  // OpenAI's current field; OpenAI-compatible servers read the older one (as the Chat encoder writes).
  outputCapField: (upstream) => (upstream === 'compatible' ? 'max_tokens' : 'max_completion_tokens'),
};
