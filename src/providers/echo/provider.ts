/**
 * The built-in `echo` provider: answers every protocol natively from the request alone, with
 * no network. What to say is decided from the request (`reply.ts`), made an IR response
 * (`answer.ts`) and written by the caller protocol's own codec, so echo answers exactly as
 * the gateway answers any translated call.
 *
 * Wire rules:
 * - Non-streaming: 200, `content-type: application/json`, the codec's complete response.
 *   `stream: true`: 200, `content-type: text/event-stream; charset=utf-8`,
 *   `cache-control: no-cache`, the codec's full event sequence. Text arrives one word per
 *   delta; tool arguments in several fragments.
 * - Request id header: `x-request-id` (Chat, Responses, Gemini) or `request-id` (Messages).
 * - Usage: see `tokens.ts`. `count_tokens` answers in the protocol's shape (Messages `{ input_tokens }`,
 *   Gemini `{ totalTokens }`) with the input estimate.
 * - Gemini names the model in the path and streams by its endpoint: the call's `model` and
 *   `stream` say what the body does not.
 * - `model` echoes the request's; every id has `echo` after its protocol's prefix
 *   (`chatcmpl-echo…`, `resp_echo…`, `msg_echo…`, `call_echo…`, `fc_echo…`, `toolu_echo…`);
 *   `created`/`created_at` come from the clock.
 */
import { randomBytes } from 'node:crypto';
import { Readable, addAbortSignal } from 'node:stream';
import type { ProviderConfig } from '../../config/types.js';
import { invalidRequest } from '../../errors.js';
import { requestIdHeader } from '../../protocols/errors.js';
import { protocols } from '../../protocols/registry.js';
import type { Protocol } from '../../protocols/types.js';
import { codecs } from '../../translate/codecs.js';
import { answerContext } from '../../translate/context.js';
import type * as Ir from '../../translate/ir.js';
import type { StreamEncoder } from '../../translate/types.js';
import type { Provider, UpstreamRequest, UpstreamResponse } from '../types.js';
import { answerEvents, echoAnswer } from './answer.js';
import { echoReply } from './reply.js';
import { estimateInputTokens } from './tokens.js';

export interface EchoDeps {
  /** Milliseconds since the epoch (default `Date.now`). */
  readonly now?: () => number;
  /** A fresh id starting with `prefix` (default: prefix + 24 random hex digits). */
  readonly newId?: (prefix: string) => string;
}

const randomId = (prefix: string): string => prefix + randomBytes(12).toString('hex');

/** A tool call's id prefix: the codecs keep the IR's call id, so echo mints it in the caller's style. */
const CALL_ID_PREFIX = { chat: 'call_', responses: 'call_', messages: 'toolu_', gemini: 'call_' } as const satisfies Record<Protocol, string>;

/** An answer of the echo provider: its body is a Readable. */
export type EchoResponse = UpstreamResponse & { readonly body: Readable };

export interface EchoProvider extends Provider {
  send(request: UpstreamRequest): Promise<EchoResponse>;
}

export function createEchoProvider(config: ProviderConfig, deps: EchoDeps = {}): EchoProvider {
  const now = deps.now ?? Date.now;
  const newId = deps.newId ?? randomId;

  async function send(request: UpstreamRequest): Promise<EchoResponse> {
    const { protocol, json } = request;
    const requestId = { [requestIdHeader(protocols[protocol].errorFamily)]: newId('req_echo') };
    if (request.operation === 'count_tokens') {
      const { counting } = protocols[protocol];
      if (counting === undefined) throw invalidRequest(`count_tokens is not an operation of the ${protocol} protocol`);
      return jsonResponse(counting.answer(estimateInputTokens(counting.request(json))), requestId, request.signal);
    }
    // A protocol that names the model in the path (Gemini) has none in the body: the call carries it.
    const model = typeof json.model === 'string' ? json.model : (request.model ?? '');
    const ctx = answerContext(protocol, model, { now, newId: (prefix) => newId(`${prefix}echo`) });
    const answer = echoAnswer(echoReply(protocol, json), {
      model,
      created: Math.floor(now() / 1000),
      inputTokens: estimateInputTokens(json),
      newCallId: () => ctx.newId(CALL_ID_PREFIX[protocol]),
    });
    const codec = codecs[protocol];
    // Gemini streams by its endpoint, which the call's flag says; the others say so in the body too.
    if (request.stream ?? json.stream === true) {
      return sseResponse(codec.encodeStream(ctx, json), answerEvents(answer), requestId, request.signal);
    }
    return jsonResponse(codec.encodeResponse(answer, ctx, json), requestId, request.signal);
  }

  return { id: config.id, config, send, close: async () => {} };
}

function jsonResponse(value: unknown, headers: Record<string, string>, signal: AbortSignal): EchoResponse {
  const body = Readable.from([Buffer.from(JSON.stringify(value))], { objectMode: false });
  return { status: 200, headers: { 'content-type': 'application/json', ...headers }, body: addAbortSignal(signal, body) };
}

function sseResponse(
  encoder: StreamEncoder,
  events: readonly Ir.StreamEvent[],
  headers: Record<string, string>,
  signal: AbortSignal,
): EchoResponse {
  // Encoded one event at a time, as the client reads, so a client that leaves stops the work.
  async function* frames(): AsyncGenerator<Buffer> {
    for (const event of events) {
      if (signal.aborted) return;
      const text = encoder.push(event);
      if (text !== '') yield Buffer.from(text);
    }
    const closing = encoder.end();
    if (closing !== '') yield Buffer.from(closing);
  }
  // Like an HTTP upstream's body: a byte stream, destroyed with an AbortError when the client leaves.
  const body = addAbortSignal(signal, Readable.from(frames(), { objectMode: false }));
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers },
    body,
  };
}
