/**
 * What each protocol provides to translation: decoders from its wire shapes to
 * the IR and encoders back. A translator for `caller -> upstream` uses the
 * caller's `decodeRequest`, `encodeResponse` and `encodeStream`, and the
 * upstream's `encodeRequest`, `decodeResponse` and `decodeStream`.
 */
import type { SseEvent } from '../sse/parse.js';
import type * as Ir from './ir.js';

import type { Json } from '../protocols/json.js';

export type { Json };

export interface StreamDecoder {
  /** One upstream SSE event → zero or more IR events. */
  push(event: SseEvent): Ir.StreamEvent[];
  /** End of the upstream body: anything still pending. */
  end(): Ir.StreamEvent[];
}

export interface StreamEncoder {
  /** One IR event → the caller's SSE text for it (possibly empty). */
  push(event: Ir.StreamEvent): string;
  /** After the last event: any closing frames (Chat's `[DONE]` after a finish). */
  end(): string;
}

export interface Codec {
  /** The caller's request → IR. Throws GatewayError (400) for what cannot be translated at all. */
  decodeRequest(body: Json, ctx: Ir.TranslateContext): Ir.Request;
  /** IR → the upstream request body. Drops what the target cannot carry, noting it in `ctx.warnings`. */
  encodeRequest(request: Ir.Request, ctx: Ir.TranslateContext): Json;
  /** The upstream's complete response → IR. */
  decodeResponse(body: Json, ctx: Ir.TranslateContext): Ir.Response;
  /** IR → the caller's complete response. `callerBody` is the caller's original request (Responses echoes its fields). */
  encodeResponse(response: Ir.Response, ctx: Ir.TranslateContext, callerBody: Json): Json;
  decodeStream(ctx: Ir.TranslateContext): StreamDecoder;
  encodeStream(ctx: Ir.TranslateContext, callerBody: Json): StreamEncoder;
}
