/**
 * The Gemini codec (`generateContent`): its wire shapes ⇄ the translation IR.
 * @see ../../../translate/types.ts for the contract; node_modules/@google/genai/dist/genai.d.ts for the wire format
 */
import type { Codec } from '../../../translate/types.js';
import { decodeRequest } from './decode-request.js';
import { decodeResponse } from './decode-response.js';
import { createStreamDecoder } from './decode-stream.js';
import { encodeRequest } from './encode-request.js';
import { encodeResponse } from './encode-response.js';
import { createStreamEncoder } from './encode-stream.js';

export const geminiCodec: Codec = {
  decodeRequest,
  encodeRequest,
  decodeResponse,
  encodeResponse: (response, ctx) => encodeResponse(response, ctx),
  decodeStream: createStreamDecoder,
  encodeStream: (ctx) => createStreamEncoder(ctx),
};
