/**
 * The whole of one exchange, captured as it happens when someone will look at it
 * (`--verbose`, `--log-file`, the inspector): the client's request, every upstream
 * attempt (the request as the provider received it, its answer chunk by chunk with
 * arrival times) and what the client got back.
 *
 * Capture keeps references to buffers the gateway already holds (the request it read,
 * the chunks it relays) plus a timestamp each, so it costs next to nothing on the
 * request path; decoding into JSON and SSE events happens only when an exchange is
 * shown or written (see `exchange-json.ts`). Each exchange holds at most `limit`
 * bytes of bodies; past that, capture stops and says so.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Protocol } from '../protocols/types.js';

/** A piece of a body and when it passed, in ms since the request arrived. */
export interface TimedChunk {
  readonly t: number;
  readonly data: Buffer | string;
}

/** A body as captured: its chunks in order, and whether capture stopped before its end. */
export interface CapturedBody {
  readonly chunks: TimedChunk[];
  truncated: boolean;
  /**
   * Set by whoever captured the body when these exact bytes are known to be JSON as
   * `parseJsonBody` accepts it (valid, nested at most MAX_JSON_DEPTH deep): a request body it
   * parsed, or that body with only the model renamed. The log file then embeds them without
   * checking them again (see jsonl.ts). Unset, the log checks for itself.
   */
  parsedJson?: true;
}

/** One request to a provider (a retry or a fallback makes another). */
export interface UpstreamAttempt {
  /** The gateway model this attempt served (differs from the requested one on a fallback). */
  readonly model: string;
  readonly provider: string;
  /** The provider credential's name, for a provider with several. */
  readonly credential?: string;
  readonly upstreamModel: string;
  readonly protocol: Protocol;
  /** When it was sent, ms since the request arrived. */
  readonly t: number;
  /** Headers the gateway sent, without the provider credential (added by the transport). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: CapturedBody;
  status?: number;
  responseHeaders?: Readonly<Record<string, string | string[] | undefined>>;
  /** The provider's answer as it arrived (an error body too). */
  readonly response: CapturedBody;
  /** Why the attempt failed, when it did (transport error, timeout, HTTP error). */
  error?: string;
  /** ms from sending to the end of the answer or the failure. */
  durationMs?: number;
}

export interface Exchange {
  /** Bytes of bodies this exchange may hold. */
  readonly limit: number;
  /** Bytes held so far. */
  bytes: number;
  readonly requestHeaders: IncomingHttpHeaders;
  readonly request: CapturedBody;
  readonly attempts: UpstreamAttempt[];
  responseStatus?: number;
  responseHeaders?: OutgoingHttpHeaders;
  /**
   * What the client got. Empty with `responseIsUpstream` when the last attempt's
   * answer was relayed unchanged (passthrough), so it is not held twice.
   */
  readonly response: CapturedBody;
  responseIsUpstream?: boolean;
}

export function newExchange(requestHeaders: IncomingHttpHeaders, limit: number): Exchange {
  return { limit, bytes: 0, requestHeaders, request: emptyBody(), attempts: [], response: emptyBody() };
}

export function emptyBody(): CapturedBody {
  return { chunks: [], truncated: false };
}

/** Adds a chunk to one of the exchange's bodies unless the exchange is full. */
export function capture(exchange: Exchange, body: CapturedBody, t: number, data: Buffer | string): void {
  if (body.truncated) return;
  const size = typeof data === 'string' ? data.length : data.length;
  if (exchange.bytes + size > exchange.limit) {
    body.truncated = true;
    return;
  }
  exchange.bytes += size;
  body.chunks.push({ t, data });
}

/** The attempt being relayed: the last one. */
export function lastAttempt(exchange: Exchange | undefined): UpstreamAttempt | undefined {
  return exchange?.attempts[exchange.attempts.length - 1];
}
