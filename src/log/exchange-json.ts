/**
 * An exchange as JSON: one line of the `--log-file` recording, and what the
 * inspector shows and `replay` re-sends. Bodies are decoded here, off the request
 * path: JSON bodies parsed, SSE streams split into events stamped with the arrival
 * time of the chunk that completed them. Credential headers are redacted.
 */
import type { RequestRecord, Transport } from './record.js';
import type { CapturedBody, UpstreamAttempt } from './exchange.js';
import { redactHeaders } from './redact.js';
import { createSseDecoder } from '../sse/parse.js';
import { MAX_JSON_DEPTH, mayNestDeeperThan, nestedDeeperThan } from '../protocols/json-outline.js';
import type { Protocol, Usage } from '../protocols/types.js';
import type { Cost } from '../cost/cost.js';

export const EXCHANGE_JSON_VERSION = 1;

export interface StreamEventJson {
  /** ms since the request arrived. */
  readonly t: number;
  readonly event?: string;
  /** The event's data, parsed when it is JSON (`[DONE]` and other text stay strings). */
  readonly data: unknown;
}

export interface BodyJson {
  /** Bytes captured. */
  readonly bytes: number;
  /** The body parsed as JSON, when it is JSON. */
  readonly json?: unknown;
  /** The body as text, when it is neither JSON nor a stream. */
  readonly text?: string;
  /** A stream's events, when the body is SSE. */
  readonly events?: readonly StreamEventJson[];
  /** Capture stopped at the exchange's byte limit; what is here is the start. */
  readonly truncated?: true;
}

export interface AttemptJson {
  readonly model: string;
  readonly provider: string;
  readonly credential?: string;
  readonly upstreamModel: string;
  readonly protocol: Protocol;
  readonly t: number;
  readonly durationMs?: number;
  readonly status?: number;
  readonly error?: string;
  readonly headers: Record<string, unknown>;
  readonly body: BodyJson;
  readonly responseHeaders?: Record<string, unknown>;
  readonly response: BodyJson;
}

/** One recorded exchange. The summary fields are the log line's; the rest is the whole exchange. */
export interface ExchangeJson {
  readonly v: typeof EXCHANGE_JSON_VERSION;
  readonly id: string;
  /** ISO time the request arrived. */
  readonly time: string;
  readonly method: string;
  readonly path: string;
  readonly transport?: Transport;
  readonly protocol?: Protocol;
  readonly upstreamProtocol?: Protocol;
  readonly userAgent?: string;
  readonly sessionId?: string;
  readonly agentId?: string;
  readonly parentAgentId?: string;
  readonly keyGroup?: string;
  readonly keyId?: string;
  readonly keyName?: string;
  readonly model?: string;
  readonly provider?: string;
  readonly upstreamModel?: string;
  readonly stream?: boolean;
  readonly status?: number;
  readonly durationMs?: number;
  readonly ttfbMs?: number;
  readonly usage?: Usage;
  readonly cost?: Cost;
  readonly warnings?: readonly string[];
  readonly error?: string;
  readonly aborted?: boolean;
  /** Present when the exchange was captured (always in a recording). */
  readonly request?: { readonly headers: Record<string, unknown>; readonly body: BodyJson };
  readonly attempts?: readonly AttemptJson[];
  readonly response?: { readonly status?: number; readonly headers?: Record<string, unknown>; readonly body: BodyJson };
}

/** Facts kept for the metrics and traces, which the log line and the log file leave out (the error and `tries` say as much). */
type MetricFacts = 'operation' | 'errorKind' | 'attemptCount' | 'refusedBy';

/** What a record says about its request, every field present (undefined until known), in one order. */
export type RecordFacts = { readonly v: number; readonly time: string } & {
  readonly [K in Exclude<keyof RequestRecord, 'start' | 'startedAt' | 'exchange' | 'trace' | MetricFacts>]-?: RequestRecord[K];
};

/**
 * The facts of the log line and of the JSON form, before any exchange: one object of one shape,
 * which `JSON.stringify` writes in a single pass (undefined fields left out). Times to 0.01 ms,
 * as the attempts' times are.
 */
export function recordFacts(r: RequestRecord, time: string): RecordFacts {
  return {
    v: EXCHANGE_JSON_VERSION,
    time,
    id: r.id,
    method: r.method,
    path: r.path,
    transport: r.transport,
    userAgent: r.userAgent,
    sessionId: r.sessionId,
    agentId: r.agentId,
    parentAgentId: r.parentAgentId,
    protocol: r.protocol,
    keyGroup: r.keyGroup,
    keyId: r.keyId,
    keyName: r.keyName,
    model: r.model,
    stream: r.stream,
    provider: r.provider,
    credential: r.credential,
    upstreamModel: r.upstreamModel,
    upstreamProtocol: r.upstreamProtocol,
    servedBy: r.servedBy,
    tries: r.tries,
    warnings: r.warnings,
    status: r.status,
    durationMs: r.durationMs === undefined ? undefined : round(r.durationMs),
    ttfbMs: r.ttfbMs === undefined ? undefined : round(r.ttfbMs),
    usage: r.usage,
    cost: r.cost,
    error: r.error,
    aborted: r.aborted,
  };
}

/** The record's facts, plus the captured exchange when there is one. */
export function exchangeJson(r: RequestRecord): ExchangeJson {
  const { exchange } = r;
  // The JSON form has only the known facts.
  const known: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(recordFacts(r, new Date(r.startedAt).toISOString()))) if (value !== undefined) known[key] = value;
  const out = known as unknown as ExchangeJson;
  if (!exchange) return out;
  const last = exchange.attempts[exchange.attempts.length - 1];
  const responseType = contentType(exchange.responseHeaders?.['content-type']);
  return {
    ...out,
    request: {
      headers: redactHeaders(exchange.requestHeaders),
      body: bodyJson(exchange.request, contentType(exchange.requestHeaders['content-type'])),
    },
    attempts: exchange.attempts.map(attemptJson),
    response: {
      ...(exchange.responseStatus !== undefined ? { status: exchange.responseStatus } : {}),
      ...(exchange.responseHeaders ? { headers: redactHeaders(exchange.responseHeaders) } : {}),
      body: bodyJson(exchange.responseIsUpstream && last ? last.response : exchange.response, responseType),
    },
  };
}

function attemptJson(a: UpstreamAttempt): AttemptJson {
  return {
    model: a.model,
    provider: a.provider,
    ...(a.credential !== undefined ? { credential: a.credential } : {}),
    upstreamModel: a.upstreamModel,
    protocol: a.protocol,
    t: round(a.t),
    ...(a.durationMs !== undefined ? { durationMs: round(a.durationMs) } : {}),
    ...(a.status !== undefined ? { status: a.status } : {}),
    ...(a.error !== undefined ? { error: a.error } : {}),
    headers: redactHeaders(a.headers),
    body: bodyJson(a.body, 'application/json'),
    ...(a.responseHeaders ? { responseHeaders: redactHeaders(a.responseHeaders) } : {}),
    response: bodyJson(a.response, contentType(a.responseHeaders?.['content-type'])),
  };
}

function contentType(value: unknown): string {
  return typeof value === 'string' ? value : Array.isArray(value) ? String(value[0] ?? '') : '';
}

const round = (ms: number) => Math.round(ms * 100) / 100;

export function bodyJson(body: CapturedBody, type: string): BodyJson {
  let bytes = 0;
  for (const c of body.chunks) bytes += typeof c.data === 'string' ? Buffer.byteLength(c.data) : c.data.length;
  const truncated = body.truncated ? { truncated: true as const } : {};
  if (body.chunks.length === 0) return { bytes, ...truncated };
  if (type.includes('text/event-stream')) return { bytes, events: streamEvents(body), ...truncated };
  const text = body.chunks.map((c) => (typeof c.data === 'string' ? c.data : c.data.toString('utf8'))).join('');
  // Too deep a body is kept as text: shown or written, its parsed form would overflow the stack.
  const tooDeep = mayNestDeeperThan(text.length, MAX_JSON_DEPTH) && nestedDeeperThan(Buffer.from(text), MAX_JSON_DEPTH);
  if (!body.truncated && !tooDeep) {
    try {
      return { bytes, json: JSON.parse(text) as unknown };
    } catch {
      // Not JSON: shown as text.
    }
  }
  return { bytes, text, ...truncated };
}

function streamEvents(body: CapturedBody): StreamEventJson[] {
  const decoder = createSseDecoder();
  const out: StreamEventJson[] = [];
  const add = (t: number, events: ReturnType<typeof decoder.push>) => {
    for (const e of events) out.push({ t: round(t), ...(e.event !== undefined ? { event: e.event } : {}), data: parseData(e.data) });
  };
  for (const c of body.chunks) add(c.t, decoder.push(c.data));
  const last = body.chunks[body.chunks.length - 1];
  add(last ? last.t : 0, decoder.end());
  return out;
}

function parseData(data: string): unknown {
  const c = data.charCodeAt(0);
  // Only objects and arrays are worth parsing; `[DONE]` and plain text stay as they are.
  if (c !== 123 /* { */ && c !== 91 /* [ */) return data;
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return data;
  }
}
