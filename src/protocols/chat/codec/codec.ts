/**
 * The OpenAI Chat Completions codec: Chat wire shapes ⇄ IR, for Chat callers
 * and for Chat upstreams (OpenAI itself, or OpenAI-compatible servers).
 * @see ../types.ts for who calls what
 */
import type { Codec } from '../../../translate/types.js';
import { decodeRequest } from './decode-request.js';
import { decodeResponse } from './decode-response.js';
import { decodeStream } from './decode-stream.js';
import { encodeRequest } from './encode-request.js';
import { encodeResponse } from './encode-response.js';
import { encodeStream } from './encode-stream.js';

export const chatCodec: Codec = {
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  decodeStream,
  encodeStream,
};
