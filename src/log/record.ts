/** Everything one log line (and one log-file entry) says about a request, filled in as it is handled. */
import type { Exchange } from './exchange.js';
import type { Cost } from '../cost/cost.js';
import type { ErrorKind } from '../errors.js';
import type { Operation, Protocol, Usage } from '../protocols/types.js';

/** A way a request reaches the gateway other than its own HTTP request. */
export type Transport = 'websocket';

export interface RequestRecord {
  readonly id: string;
  /** Epoch ms, for the timestamp. */
  readonly startedAt: number;
  /** performance.now() at arrival, for durations. */
  readonly start: number;
  readonly method: string;
  readonly path: string;
  /** How the request came: 'websocket' for a message on a Responses WebSocket connection; undefined for an HTTP request. */
  transport?: Transport | undefined;
  protocol?: Protocol | undefined;
  /** What a model request asks (create, count_tokens, compact); undefined for the other endpoints. */
  operation?: Operation | undefined;
  /** The protocol spoken upstream (differs from `protocol` when translated). */
  upstreamProtocol?: Protocol | undefined;
  userAgent?: string | undefined;
  /** The client's conversation (Claude Code's `x-claude-code-session-id`, Codex's `session-id`), escaped and capped. */
  sessionId?: string | undefined;
  /** The Claude Code subagent that sent the request (`x-claude-code-agent-id`), and the agent that started it. */
  agentId?: string | undefined;
  parentAgentId?: string | undefined;
  keyGroup?: string | undefined;
  /** Non-secret key id (digest prefix) and optional label. */
  keyId?: string | undefined;
  keyName?: string | undefined;
  model?: string | undefined;
  provider?: string | undefined;
  /** The provider credential's name, for a provider with several (never the secret). */
  credential?: string | undefined;
  upstreamModel?: string | undefined;
  stream?: boolean | undefined;
  status?: number | undefined;
  durationMs?: number | undefined;
  /** Time to the first byte sent to the client, for streams. */
  ttfbMs?: number | undefined;
  usage?: Usage | undefined;
  /** What the request cost, once its usage is known. */
  cost?: Cost | undefined;
  /** The fallback model that served the request, when not the one asked for. */
  servedBy?: string | undefined;
  /** Upstream attempts that failed before the answer (retries, fallbacks), in order. */
  tries?: Try[] | undefined;
  /** What translation dropped or approximated. */
  warnings?: readonly string[] | undefined;
  /** Why the request failed, safe to show. */
  error?: string | undefined;
  /** The kind of the error the request was answered with, when it failed before its response started. */
  errorKind?: ErrorKind | undefined;
  /** Upstream requests sent, retries and fallbacks included (the log line's `tries` lists the failed ones). */
  attemptCount?: number | undefined;
  /** The limit that refused the request at admission: the server's cap or one of its key group's. */
  refusedBy?: Refusal | undefined;
  /** The client went away before the response was complete. */
  aborted?: boolean | undefined;
  /** The whole exchange, captured when someone will look at it (--verbose, --log-file, the inspector). */
  exchange?: Exchange | undefined;
  /** The request's trace, when tracing is on: told of its attempts as they happen. */
  trace?: RequestTrace | undefined;
}

/** What refuses a request at admission: the server's `maxConcurrentRequests`, or a key group's limit. */
export type Refusal = 'server' | 'requestsPerMinute' | 'concurrentRequests' | 'tokensPerMinute';

/** A failed upstream attempt, for the log line's route (`gpt-a 529×3 → claude-b`). */
export interface Try {
  readonly model: string;
  readonly provider: string;
  /** The provider's HTTP status, when it answered. */
  status?: number;
  /** The failure's kind when it did not answer (`upstream_unavailable`, `timeout`). */
  error?: string;
}

/**
 * A record with every field present from the start (undefined until known), so all records
 * share one shape and the code that reads them stays monomorphic; fields that were added in
 * whatever order a request happened to fill them in gave V8 dozens of shapes to go through.
 * Undefined fields are left out of the log line and the inspector's JSON, as absent ones were.
 */
export function newRecord(id: string, startedAt: number, start: number, method: string, path: string): RequestRecord {
  return {
    id,
    startedAt,
    start,
    method,
    path,
    transport: undefined,
    userAgent: undefined,
    sessionId: undefined,
    agentId: undefined,
    parentAgentId: undefined,
    protocol: undefined,
    operation: undefined,
    keyGroup: undefined,
    keyId: undefined,
    keyName: undefined,
    model: undefined,
    stream: undefined,
    provider: undefined,
    credential: undefined,
    upstreamModel: undefined,
    upstreamProtocol: undefined,
    servedBy: undefined,
    tries: undefined,
    warnings: undefined,
    status: undefined,
    durationMs: undefined,
    ttfbMs: undefined,
    usage: undefined,
    cost: undefined,
    error: undefined,
    errorKind: undefined,
    attemptCount: 0,
    refusedBy: undefined,
    aborted: undefined,
    exchange: undefined,
    trace: undefined,
  };
}

/** The route an attempt goes on, as the trace names it. */
export interface TracedRoute {
  readonly name: string;
  readonly target: { readonly provider: { readonly id: string; readonly type: string }; readonly upstreamModel: string };
  readonly plan: { readonly upstreamProtocol: Protocol };
}

/**
 * One request's trace, when tracing is on (src/tracing builds it): its span, and one child span per
 * upstream attempt, told of what happens as pipeline/events.ts records it.
 */
export interface RequestTrace {
  /** An attempt starts (the record names its credential): its span opens; returns the `traceparent` that goes upstream with it. */
  attemptStarted(record: RequestRecord, route: TracedRoute): string | undefined;
  /** The provider answered the attempt's head with this status. */
  attemptAnswered(status: number): void;
  /** The attempt failed before an answer was relayed: its span ends with the error. */
  attemptFailed(error: { readonly kind: string; readonly message: string; readonly status: number | undefined }): void;
  /** The request's body (kept, cut, only when content is captured). */
  requestBody(raw: Buffer): void;
  /** A piece of the response sent to the caller (kept, cut, only when content is captured). */
  responsePart(data: Buffer | string): void;
  /** The response closed: the spans end with what the record says. */
  end(record: RequestRecord): void;
}
