/**
 * Anthropic Messages: `POST /v1/messages` and `/v1/messages/count_tokens`, keys in `x-api-key`
 * (or Bearer), and a dated `anthropic-version` on every call.
 * @see docs/protocols.md, "Anthropic Messages"
 */
import type { IncomingHttpHeaders } from 'node:http';
import { invalidRequest } from '../../errors.js';
import type { ProtocolModule } from '../protocol.js';
import { STREAM_ENDS } from '../stream-ends.js';
import { messagesCodec } from './codec/codec.js';
import { stripSeals } from './strip-seals.js';
import { createMessagesWatch, messagesUsage } from './usage.js';
import { inspectMessagesRequest } from './validate.js';
import { DEFAULT_ANTHROPIC_VERSION } from './version.js';

const ANTHROPIC_VERSION = /^\d{4}-\d{2}-\d{2}$/;

function checkAnthropicVersion(headers: IncomingHttpHeaders): void {
  const version = headers['anthropic-version'];
  if (typeof version !== 'string' || !ANTHROPIC_VERSION.test(version)) {
    throw invalidRequest(
      version === undefined
        ? 'Missing required header: anthropic-version (for example `anthropic-version: 2023-06-01`).'
        : `Invalid anthropic-version header '${String(version)}': expected a date such as 2023-06-01.`,
    );
  }
}

export const messages: ProtocolModule = {
  id: 'messages',
  title: 'Messages',
  endpoints: [
    { method: 'POST', path: '/v1/messages', operation: 'create' },
    { method: 'POST', path: '/v1/messages/count_tokens', operation: 'count_tokens' },
  ],
  keyStyle: 'anthropic',
  marker: 'anthropic-version',
  checkHeaders: checkAnthropicVersion,
  inspect: (call, limits) => inspectMessagesRequest(call.body, call.operation, limits),
  usage: messagesUsage,
  watchStream: createMessagesWatch,
  streamEnds: STREAM_ENDS.messages,
  errorFamily: 'anthropic',
  codec: messagesCodec,
  upstreamPath: (operation) => (operation === 'create' ? ['messages'] : operation === 'count_tokens' ? ['messages', 'count_tokens'] : undefined),
  upstreamHeaders: { forward: ['anthropic-version', 'anthropic-beta'], defaults: { 'anthropic-version': DEFAULT_ANTHROPIC_VERSION } },
  // A count is of the request as it is, and answers Anthropic's `{input_tokens}`.
  counting: { request: (body) => body, answer: (tokens) => ({ input_tokens: tokens }) },
  // `max_tokens` is required, so a key group's cap never needs adding.
  asks: { outputTokens: ['max_tokens'] },
  stripSeals,
  // Claude Code sends signed thinking back only from answers that name the model it asked for.
  renamesAnswerModel: true,
};
