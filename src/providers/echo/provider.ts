/**
 * The built-in `echo` provider: answers every protocol natively from the request alone,
 * with no network, shaped exactly as the real APIs answer (what to say: `reply.ts`).
 *
 * Wire rules:
 * - Non-streaming: 200, `content-type: application/json`, one JSON body. `stream: true`:
 *   200, `content-type: text/event-stream; charset=utf-8`, `cache-control: no-cache`, the
 *   protocol's full event sequence (Chat: data-only chunks, then `data: [DONE]`; Responses
 *   and Messages: `event:` lines equal to the data's `type`). Text arrives one word per
 *   delta; tool arguments in several fragments (Messages starts with an empty one).
 * - Request id header: `x-request-id` (Chat, Responses) or `request-id` (Messages).
 * - Usage: input tokens = ceil(UTF-8 bytes of JSON.stringify(body) / 4); output tokens =
 *   max(1, ceil(characters of the reply text, or of the arguments JSON, / 4)). Chat streams
 *   add the usage chunk (`choices: []`) only with `stream_options.include_usage`.
 *   Messages `count_tokens` answers `{ input_tokens }` with the same input estimate.
 * - Stop: Chat `finish_reason` `stop` / `tool_calls`; Messages `stop_reason` `end_turn` /
 *   `tool_use`; Responses `status: 'completed'`.
 * - `model` echoes the request's; ids are `chatcmpl-echo…`, `resp_echo…`, `msg_echo…`,
 *   `call_echo…`, `fc_echo…`, `toolu_echo…`; `created`/`created_at` come from the clock.
 */
import { randomBytes } from 'node:crypto';
import { Readable, addAbortSignal } from 'node:stream';
import type { ProviderConfig } from '../../config/types.js';
import { invalidRequest } from '../../errors.js';
import { textFrame } from '../../sse/format.js';
import type { Provider, UpstreamRequest, UpstreamResponse } from '../types.js';
import { encodeJson, encodeSse } from './encode.js';
import { countTokensJson } from './messages.js';
import { estimateInputTokens, mintIds, type EchoMeta } from './meta.js';
import { echoReply } from './reply.js';
import type { SseEvent } from './sse.js';

export interface EchoDeps {
  /** Milliseconds since the epoch (default `Date.now`). */
  readonly now?: () => number;
  /** A fresh id starting with `prefix` (default: prefix + 24 random hex digits). */
  readonly newId?: (prefix: string) => string;
}

const randomId = (prefix: string): string => prefix + randomBytes(12).toString('hex');

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
    const requestId = { [protocol === 'messages' ? 'request-id' : 'x-request-id']: newId('req_echo') };
    if (request.operation === 'count_tokens') {
      if (protocol !== 'messages') throw invalidRequest(`count_tokens is not an operation of the ${protocol} protocol`);
      return jsonResponse(countTokensJson(json), requestId, request.signal);
    }
    const reply = echoReply(protocol, json);
    const meta: EchoMeta = {
      model: typeof json.model === 'string' ? json.model : '',
      created: Math.floor(now() / 1000),
      inputTokens: estimateInputTokens(json),
      ids: mintIds(protocol, newId),
    };
    if (json.stream === true) return sseResponse(encodeSse(protocol, reply, json, meta), requestId, request.signal);
    return jsonResponse(encodeJson(protocol, reply, json, meta), requestId, request.signal);
  }

  return { id: config.id, config, send, close: async () => {} };
}

function jsonResponse(value: unknown, headers: Record<string, string>, signal: AbortSignal): EchoResponse {
  const body = Readable.from([Buffer.from(JSON.stringify(value))], { objectMode: false });
  return { status: 200, headers: { 'content-type': 'application/json', ...headers }, body: addAbortSignal(signal, body) };
}

function sseResponse(events: readonly SseEvent[], headers: Record<string, string>, signal: AbortSignal): EchoResponse {
  async function* frames(): AsyncGenerator<Buffer> {
    for (const event of events) {
      if (signal.aborted) return;
      yield Buffer.from(textFrame(event.data, event.event));
    }
  }
  // Like an HTTP upstream's body: a byte stream, destroyed with an AbortError when the client leaves.
  const body = addAbortSignal(signal, Readable.from(frames(), { objectMode: false }));
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers },
    body,
  };
}
