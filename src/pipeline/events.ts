/**
 * What happens to a request, told as it happens: the only writer of its RequestRecord and of
 * the exchange captured with it. The rest of the pipeline calls these and never writes either
 * itself; the log, the inspector and the observers only read what they hold. One place to
 * read what each event records, and the record's fields get one meaning each.
 *
 * Plain functions over the record rather than an object per request: a request already
 * carries the record, and these run on the request path.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { GatewayKey } from '../config/types.js';
import { costOf, type Price, UNPRICED } from '../cost/price.js';
import { GatewayError } from '../errors.js';
import { capture, emptyBody, newExchange, type UpstreamAttempt } from '../log/exchange.js';
import { newRecord, type Refusal, type RequestRecord, type Transport, type Try } from '../log/record.js';
import { printable } from '../log/terminal-text.js';
import type { Operation, Protocol, RequestInfo, Usage } from '../protocols/types.js';
import type { RequestTrace } from '../tracing/types.js';

/** Where a handler's records come from: their ids, how much of each exchange to capture (0: none), and their traces. */
export interface RecordSource {
  newId(): string;
  captureLimit(): number;
  /** Present only while tracing is on. */
  readonly trace?: ((req: IncomingMessage) => RequestTrace) | undefined;
}

/** The facts of a route the record keeps (a route in routing/route.ts is one). */
export interface RouteFacts {
  /** The gateway model name: the requested one, or a fallback's. */
  readonly name: string;
  readonly target: { readonly provider: { readonly id: string; readonly type: string }; readonly upstreamModel: string };
  readonly plan: { readonly upstreamProtocol: Protocol; readonly translator?: unknown };
}

/** A request made from a message of another transport says so (websocket/wire.ts); node's own requests have no such member. */
type CarriedRequest = IncomingMessage & { readonly transport?: Transport };

/** A request arrived: its record, with an exchange to capture into when someone will look at it. */
export function requestStarted(req: IncomingMessage, path: string, source: RecordSource): RequestRecord {
  const record = newRecord(source.newId(), Date.now(), performance.now(), req.method ?? '?', path);
  record.transport = (req as CarriedRequest).transport;
  const ua = req.headers['user-agent'];
  if (ua) record.userAgent = ua;
  clientIds(record, req.headers);
  const limit = source.captureLimit();
  if (limit > 0) record.exchange = newExchange(req.headers, limit);
  if (source.trace) record.trace = source.trace(req);
  return record;
}

/** Longest session or agent id kept: real ones are UUIDs or short names; longer ones are cut. */
export const CLIENT_ID_LIMIT = 128;

/** Codex names its session header both ways. */
const SESSION_HEADERS = ['x-claude-code-session-id', 'session-id', 'session_id'] as const;

/** A header's first value, cut and escaped: the caller chooses these bytes, and the log and the inspector show them. */
function clientId(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v ? printable(v.length > CLIENT_ID_LIMIT ? v.slice(0, CLIENT_ID_LIMIT) : v) : undefined;
}

/** The conversation and the agent the client says a request belongs to, so that subagents group under their session. */
function clientIds(record: RequestRecord, headers: IncomingMessage['headers']): void {
  for (const name of SESSION_HEADERS) {
    const id = clientId(headers[name]);
    if (id) {
      record.sessionId = id;
      break;
    }
  }
  record.agentId = clientId(headers['x-claude-code-agent-id']);
  record.parentAgentId = clientId(headers['x-claude-code-parent-agent-id']);
}

/** The endpoint says which protocol the caller speaks (a guess for `/v1/models`, from its headers). */
export function protocolKnown(record: RequestRecord, protocol: Protocol): void {
  record.protocol = protocol;
}

/** A model endpoint says what the request asks. */
export function operationKnown(record: RequestRecord, operation: Operation): void {
  record.operation = operation;
}

export function keyIdentified(record: RequestRecord, key: GatewayKey): void {
  record.keyGroup = key.group;
  record.keyId = key.id;
  if (key.name) record.keyName = key.name;
}

/** The request's body, read whole. */
export function bodyRead(record: RequestRecord, raw: Buffer): void {
  record.trace?.requestBody(raw);
  const x = record.exchange;
  if (x) capture(x, x.request, performance.now() - record.start, raw);
}

/** The body parsed and depth-checked: the log file may embed its bytes without checking them again (see jsonl.ts). */
export function bodyParsed(record: RequestRecord, info: RequestInfo): void {
  if (record.exchange) record.exchange.request.parsedJson = true;
  record.model = info.model;
  record.stream = info.stream;
}

/** A request answered without an upstream call on behalf of this provider (a token estimate). */
export function answeredLocally(record: RequestRecord, providerId: string): void {
  record.provider = providerId;
}

/** The route being tried: the line and the log show where the request went. */
export function routeChosen(record: RequestRecord, route: RouteFacts, warnings: readonly string[] | undefined): void {
  record.provider = route.target.provider.id;
  record.upstreamModel = route.target.upstreamModel;
  record.upstreamProtocol = route.plan.upstreamProtocol;
  record.servedBy = route.name !== record.model ? route.name : undefined;
  record.warnings = warnings;
}

/**
 * A request goes to the provider: the headers the gateway sends (without the credential) and the
 * bytes. While tracing, the attempt's `traceparent` is put in its headers (their own copy: see
 * attempts.ts's Outgoing).
 */
export function attemptStarted(
  record: RequestRecord,
  route: RouteFacts,
  request: { readonly headers: Record<string, string>; readonly body: Buffer; readonly credential?: string | undefined },
): void {
  const { credential } = request;
  record.credential = credential;
  record.attemptCount = (record.attemptCount ?? 0) + 1;
  if (record.trace) {
    const traceparent = record.trace.attemptStarted(record, route);
    if (traceparent !== undefined) request.headers.traceparent = traceparent;
  }
  const x = record.exchange;
  if (!x) return;
  const attempt: UpstreamAttempt = {
    model: route.name,
    provider: route.target.provider.id,
    ...(credential !== undefined ? { credential } : {}),
    upstreamModel: route.target.upstreamModel,
    protocol: route.plan.upstreamProtocol,
    t: performance.now() - record.start,
    headers: request.headers,
    body: emptyBody(),
    response: emptyBody(),
  };
  capture(x, attempt.body, attempt.t, request.body);
  // Passthrough sends the parsed request with at most `model` spliced in (or re-serialised), so the
  // bytes are JSON as parseJsonBody accepts it; a translator's output was never checked that way.
  if (!route.plan.translator) attempt.body.parsedJson = true;
  x.attempts.push(attempt);
}

/** The provider answered this attempt's head. */
export function attemptAnswered(record: RequestRecord, answer: { readonly status: number; readonly headers: Readonly<Record<string, string | string[] | undefined>> }): void {
  record.trace?.attemptAnswered(answer.status);
  const attempt = lastAttempt(record);
  if (!attempt) return;
  attempt.status = answer.status;
  attempt.responseHeaders = answer.headers;
}

/** A piece of the provider's answer (or its error body) arrived. */
export function upstreamChunk(record: RequestRecord, data: Buffer | string): void {
  const x = record.exchange;
  const attempt = lastAttempt(record);
  if (!x || !attempt) return;
  const t = performance.now() - record.start;
  capture(x, attempt.response, t, data);
  attempt.durationMs = t - attempt.t;
}

/** The attempt failed before an answer was relayed: a retry or a fallback may follow. */
export function attemptFailed(record: RequestRecord, route: RouteFacts, err: unknown): void {
  const attempt = lastAttempt(record);
  if (attempt) {
    attempt.error ??= err instanceof Error ? err.message : String(err);
    attempt.durationMs ??= performance.now() - record.start - attempt.t;
  }
  const t: Try = { model: route.name, provider: route.target.provider.id };
  if (err instanceof GatewayError && err.upstreamStatus !== undefined) t.status = err.upstreamStatus;
  else t.error = err instanceof GatewayError ? err.kind : 'error';
  record.trace?.attemptFailed({
    kind: err instanceof GatewayError ? err.kind : 'error',
    message: err instanceof Error ? err.message : String(err),
    status: t.status,
  });
  record.tries ??= [];
  record.tries.push(t);
}

/** The head of the client's answer. */
export function answerHead(record: RequestRecord, status: number, headers: OutgoingHttpHeaders): void {
  const x = record.exchange;
  if (!x) return;
  x.responseStatus = status;
  x.responseHeaders = headers;
}

/** The client's answer is the last attempt's, unchanged (passthrough): it is not held twice. `body`: a whole one. */
export function answerIsUpstream(record: RequestRecord, body?: Buffer): void {
  if (body !== undefined) record.trace?.responsePart(body);
  if (record.exchange) record.exchange.responseIsUpstream = true;
}

/** The whole body of the client's answer. */
export function answerBody(record: RequestRecord, body: Buffer | string): void {
  record.trace?.responsePart(body);
  const x = record.exchange;
  if (x) capture(x, x.response, performance.now() - record.start, body);
}

/** A piece of a streamed answer goes to the client; the first one marks the time to first byte. */
export function answerChunk(record: RequestRecord, data: Buffer | string): void {
  record.trace?.responsePart(data);
  const x = record.exchange;
  if (record.ttfbMs !== undefined && x === undefined) return;
  const t = performance.now() - record.start;
  record.ttfbMs ??= t;
  if (x && !x.responseIsUpstream) capture(x, x.response, t, data);
}

/**
 * The gateway's own frames end the client's stream (an error): the client's answer is no longer
 * the upstream's alone, so what was relayed unchanged is copied to it first.
 */
export function answerTail(record: RequestRecord, tail: Buffer | string): void {
  const x = record.exchange;
  if (!x || tail.length === 0) return;
  if (x.responseIsUpstream) {
    x.responseIsUpstream = false;
    const attempt = lastAttempt(record);
    if (attempt) for (const c of attempt.response.chunks) capture(x, x.response, c.t, c.data);
  }
  capture(x, x.response, performance.now() - record.start, tail);
}

/** The relayed answer broke off or could not be read; the client is told in-band. */
export function answerFailed(record: RequestRecord, message: string): void {
  record.error = message;
  const attempt = lastAttempt(record);
  if (attempt) attempt.error ??= message;
}

/** What the answer used, as far as it went. */
export function usageRead(record: RequestRecord, usage: Usage | undefined): void {
  if (usage !== undefined) record.usage = usage;
}

/** The request failed with this error, answered in the caller's shape; its message is safe to show. */
export function requestFailed(record: RequestRecord, error: GatewayError): void {
  record.error = error.message;
  record.errorKind = error.kind;
}

/** Admission refused the request: the server was at its cap, or the key group over one of its limits. */
export function limitRefused(record: RequestRecord, by: Refusal): void {
  record.refusedBy = by;
}

/**
 * The response closed, whole or not: its cost, when the provider reported token counts, at the price of
 * the route that served it. Returns whether the client left before its end.
 */
export function requestEnded(record: RequestRecord, res: ServerResponse, price: Price | undefined): boolean {
  record.durationMs = performance.now() - record.start;
  if (res.headersSent) record.status ??= res.statusCode;
  // A stream that stated no counts (a Chat caller that did not ask for usage) has no cost to tell, rather than $0.
  const usage = record.usage;
  if (usage !== undefined && record.provider !== undefined && (usage.inputTokens !== undefined || usage.outputTokens !== undefined)) {
    record.cost = price ? costOf(price, usage, record.startedAt) : UNPRICED;
  }
  if (res.writableFinished) return false;
  record.aborted = true;
  return true;
}

function lastAttempt(record: RequestRecord): UpstreamAttempt | undefined {
  const attempts = record.exchange?.attempts;
  return attempts?.[attempts.length - 1];
}
