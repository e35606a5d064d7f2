/**
 * The Anthropic Messages codec: its wire shapes ⇄ the translation IR.
 * @see ../types.ts for the contract, docs/protocols.md for the wire format
 */
import type { Codec } from '../../../translate/types.js';
import { decodeRequest } from './decode-request.js';
import { decodeResponse } from './decode-response.js';
import { createStreamDecoder } from './decode-stream.js';
import { encodeRequest } from './encode-request.js';
import { encodeResponse } from './encode-response.js';
import { createStreamEncoder } from './encode-stream.js';

export { DEFAULT_MAX_TOKENS } from './encode-request.js';
export { THINKING_BUDGETS } from './reasoning.js';

export const messagesCodec: Codec = {
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse: (response, ctx) => encodeResponse(response, ctx),
  decodeStream: createStreamDecoder,
  encodeStream: (ctx) => createStreamEncoder(ctx),
};
