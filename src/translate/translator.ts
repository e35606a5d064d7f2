/**
 * A translator for one `caller -> upstream` pair: the caller's codec on the
 * outside, the upstream's on the inside, joined through the IR.
 */
import type { SseEvent } from '../sse/parse.js';
import type * as Ir from './ir.js';
import { responseToEvents } from './common/ir-stream.js';
import type { Codec, Json } from './types.js';

export interface StreamTranslation {
  /** One upstream SSE event → the caller's SSE text for it. */
  push(event: SseEvent): string;
  /** The upstream body ended: closing frames, or an error frame when it ended before finishing. */
  end(): string;
  /** The upstream failed mid-stream: the caller's error frame. */
  fail(message: string): string;
  /** Usage from the `finish` event, for the log. */
  readonly usage: Ir.Usage | undefined;
  readonly finished: boolean;
}

export interface Translator {
  /** The caller's request body → the upstream's. */
  request(body: Json, ctx: Ir.TranslateContext): Json;
  /** The upstream's complete response → the caller's. */
  response(body: Json, ctx: Ir.TranslateContext, callerBody: Json): Json;
  stream(ctx: Ir.TranslateContext, callerBody: Json): StreamTranslation;
  /** A complete upstream response to a streaming call (some servers do that) → the caller's stream. */
  responseAsStream(body: Json, ctx: Ir.TranslateContext, callerBody: Json): string;
}

export function createTranslator(caller: Codec, upstream: Codec): Translator {
  return {
    request: (body, ctx) => upstream.encodeRequest(withinModelLimit(caller.decodeRequest(body, ctx), ctx), ctx),
    response: (body, ctx, callerBody) => caller.encodeResponse(upstream.decodeResponse(body, ctx), ctx, callerBody),
    stream(ctx, callerBody) {
      const decoder = upstream.decodeStream(ctx);
      const encoder = caller.encodeStream(ctx, callerBody);
      let failed = false;
      const emit = (events: readonly Ir.StreamEvent[]): string => {
        let out = '';
        for (const ev of events) {
          if (translation.finished || failed) break;
          if (ev.type === 'finish') {
            translation.usage = ev.usage;
            translation.finished = true;
          } else if (ev.type === 'error') {
            failed = true;
          }
          out += encoder.push(ev);
        }
        return out;
      };
      const fail = (message: string) => (translation.finished || failed ? '' : emit([{ type: 'error', message }]));
      // Data properties, not getters over locals: see StreamWatch (protocols/stream-watch.ts).
      const translation = {
        push: (event: SseEvent) => emit(decoder.push(event)),
        end() {
          const out = emit(decoder.end());
          if (failed) return out;
          if (!translation.finished) return out + fail('The upstream stream ended before it was complete.');
          return out + encoder.end();
        },
        fail,
        usage: undefined as Ir.Usage | undefined,
        finished: false,
      };
      return translation;
    },
    responseAsStream(body, ctx, callerBody) {
      const encoder = caller.encodeStream(ctx, callerBody);
      const events = responseToEvents(upstream.decodeResponse(body, ctx));
      return events.map((ev) => encoder.push(ev)).join('') + encoder.end();
    },
  };
}


/**
 * What the target model can take. Clients size `max_tokens` for the model they think they talk to
 * (Claude Code asks for 128,000), so the model's configured limit caps it; and a model configured
 * without `reasoning` gets no reasoning request.
 */
function withinModelLimit(request: Ir.Request, ctx: Ir.TranslateContext): Ir.Request {
  if (ctx.reasoningUnsupported && request.reasoning !== undefined) {
    ctx.warnings.push('reasoning (the model does not support it)');
    const { reasoning: _dropped, ...rest } = request;
    request = rest;
  }
  const limit = ctx.maxOutputTokens;
  if (limit === undefined || request.maxOutputTokens === undefined || request.maxOutputTokens <= limit) return request;
  ctx.warnings.push(`max tokens capped to ${limit}`);
  return { ...request, maxOutputTokens: limit };
}
