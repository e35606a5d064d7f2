/**
 * The OpenAI Responses codec: Responses wire shapes ⇄ IR. As a caller's
 * protocol it serves the Codex CLI and the openai SDK; as an upstream's, OpenAI.
 * @see README.md, "Translation"
 */
import type { Codec } from '../../../translate/types.js';
import { decodeRequest } from './decode-request.js';
import { decodeResponse } from './decode-response.js';
import { decodeStream } from './decode-stream.js';
import { encodeRequest } from './encode-request.js';
import { encodeResponse } from './encode-response.js';
import { encodeStream } from './encode-stream.js';

export const responsesCodec: Codec = {
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse,
  decodeStream,
  encodeStream,
};
