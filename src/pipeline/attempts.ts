/**
 * Sends a request upstream and relays the answer, retrying and falling back while nothing has
 * reached the client yet. Each route (the model asked for, then its fallbacks) is tried up to its
 * provider's `retries + 1` times, with the SDKs' backoff (see retry-policy.ts). Once an upstream
 * answers 2xx the relay starts and the gateway is committed: a failure after that is reported
 * in-band, never retried.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError, type GatewayErrorOptions } from '../errors.js';
import type { CallAbort } from '../providers/abort.js';
import { retryAfterMs } from '../providers/response-headers.js';
import { scrubCredential } from '../providers/scrub-credential.js';
import {
  type CredentialPick,
  ERROR_BODY_LIMIT,
  type Operation,
  type Provider,
  type UpstreamRequest,
  type UpstreamResponse,
} from '../providers/types.js';
import type { Protocol } from '../protocols/types.js';
import { fallbackRoutes, type Route } from '../routing/route.js';
import { affinityOf } from './affinity.js';
import type { Cleanup, RequestContext } from './context.js';
import { deadline } from './deadlines.js';
import { attemptAnswered, attemptFailed, attemptStarted, routeChosen, upstreamChunk } from './events.js';
import type { ModelRequest } from './model-request.js';
import { prepare, type Prepared } from './prepare.js';
import { withReferences } from './references.js';
import { readText } from './relay/answer-body.js';
import type { RelayContext } from './relay/context.js';
import { relay } from './relay/relay.js';
import { isCredentialRefusal, isRetryable, retryDelayMs, shouldFallBack } from './retry-policy.js';

/** Tries the primary route, then its fallbacks, until one answers 2xx; relays that answer. */
export async function runAttempts(r: ModelRequest): Promise<void> {
  let failure: unknown;
  let sent = 0;
  let fallbacks: Generator<Route> | undefined;
  let route: Route | undefined = r.primary;
  while (route) {
    const outcome = await tryRoute(r, route);
    if (outcome === 'done') return;
    failure = outcome.failure;
    sent += outcome.attempts;
    if (r.ctx.controller.aborted || !shouldFallBack(failure)) break;
    // Made only when the primary failed: most requests never need a fallback.
    fallbacks ??= fallbackRoutes(r, r.primary);
    route = fallbacks.next().value;
  }
  const reason: unknown = r.ctx.controller.reason;
  if (reason instanceof GatewayError) throw reason; // The total time ran out.
  if (r.ctx.controller.aborted) return; // The client left; nobody to answer.
  // Tell the caller's SDK not to retry what the gateway already retried.
  throw sent > 1 && failure instanceof GatewayError ? withOptions(failure, { headers: { ...failure.headers, 'x-should-retry': 'false' } }) : failure;
}

/** The cleanup of a request that made an upstream controller: a client gone before the end cancels the upstream request. */
export const abortIfLeft: Cleanup = (ctx) => {
  if (ctx.left) ctx.controller?.abort();
};

const cancelDeadline: Cleanup = (ctx) => {
  ctx.deadline?.cancel();
};

/** Arms the overall cap of a route's provider, replacing the previous route's. */
function armDeadline(ctx: RequestContext, ms: number): void {
  if (ctx.deadline === undefined) ctx.cleanups.push(cancelDeadline);
  else ctx.deadline.cancel();
  ctx.deadline = deadline(ms, timedOut, ctx);
}

/** The total time ran out: the upstream call is aborted with the error the caller sees. */
function timedOut(ctx: RequestContext, ms: number): void {
  ctx.controller?.abort(
    new GatewayError('timeout', `Provider '${ctx.record.provider ?? '?'}' did not finish within ${ms / 1000}s (its timeouts.totalMs).`),
  );
}

type Outcome = 'done' | { readonly failure: unknown; readonly attempts: number };

async function tryRoute(asked: ModelRequest, route: Route): Promise<Outcome> {
  // A translated route sends the history a Responses caller refers to by id; a 400 names an id not held.
  const resolving = route.plan.translator ? withReferences(asked) : asked;
  const r = resolving instanceof Promise ? await resolving : resolving;
  const { ctx } = r;
  const { controller, record } = ctx;
  const provider = route.provider;
  // Read before the parsed body can go: a provider with several credentials keeps a conversation on one.
  const affinity = provider.pick ? affinityOf(r) : undefined;
  const prepared = prepare(r, route);
  // Passthrough sends bytes from here on: the parsed body can go (see body-tree.ts).
  if (!prepared.translation) r.body.release();
  routeChosen(record, route, prepared.warnings);
  ctx.price = route.price;
  const retries = provider.config.retries;
  let failure: unknown;
  let attempts = 0;
  // Armed before the first call rather than after it: undici writes a call on a reused connection later in
  // the same turn anyway, so arming after would gain nothing for a flag's worth of state.
  armDeadline(ctx, provider.config.timeouts.totalMs);
  // With several credentials the next attempt goes with another one: the upstream's wait and its refusal were the last one's.
  const several = provider.pick !== undefined;
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) {
      const delay = retryDelayMs(attempt, failure instanceof GatewayError && !several ? retryAfterMs(failure.headers) : undefined);
      if (delay === undefined) break;
      try {
        await sleep(delay, undefined, { signal: controller.signal });
      } catch {
        break; // The client left, or the total time ran out.
      }
    }
    attempts++;
    let upstream: UpstreamResponse;
    try {
      const credential = provider.pick ? pickCredential(ctx, provider.pick(affinity)) : undefined;
      const outgoing = new Outgoing(r, prepared, credential);
      attemptStarted(record, route, outgoing);
      upstream = await provider.send(outgoing);
    } catch (err) {
      failure = err;
      attemptFailed(record, route, err);
      if (controller.aborted || !tryAgain(err, several)) break;
      continue;
    }
    if (upstream.status >= 200 && upstream.status < 300) {
      try {
        await relay(relayContext(r, provider, prepared), upstream);
        return 'done';
      } catch (err) {
        // A whole (non-streaming) answer that broke off while being read has sent the client nothing yet: retry it.
        if (ctx.res.headersSent || controller.aborted || !isRetryable(err)) throw err;
        failure = err;
        attemptFailed(record, route, err);
        continue;
      }
    }
    failure = await httpFailure(r, route, upstream);
    attemptFailed(record, route, failure);
    if (!tryAgain(failure, several)) break;
  }
  return { failure, attempts };
}

/** Whether a failed attempt is tried again on this route: a refused credential too, when another can take its place. */
const tryAgain = (err: unknown, several: boolean): boolean => isRetryable(err) || (several && isCredentialRefusal(err));

/**
 * The credential an attempt goes with: the one before it is settled with no tokens (it failed),
 * and this one with the request's tokens when the request ends.
 */
function pickCredential(ctx: RequestContext, pick: CredentialPick): string {
  if (ctx.credential === undefined) ctx.cleanups.push(settleCredential);
  else ctx.credential.settle(0);
  ctx.credential = pick;
  return pick.name;
}

const settleCredential: Cleanup = (ctx) => {
  const usage = ctx.record.usage;
  ctx.credential?.settle((usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0));
};

/**
 * A provider's request. A class so that `signal` and `json`, made only if the provider reads
 * them (the echo provider does; HTTP uses `abort` and `body`), are getters on the prototype: a
 * getter in an object literal sends each request's object through V8's runtime into
 * dictionary mode.
 */
class Outgoing implements UpstreamRequest {
  readonly protocol: Protocol;
  readonly operation: Operation;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  readonly model: string;
  readonly abort: CallAbort;
  readonly stream: boolean;
  readonly maxResponseBytes: number;

  constructor(
    private readonly request: ModelRequest,
    private readonly prepared: Prepared,
    readonly credential: string | undefined,
  ) {
    this.protocol = prepared.protocol;
    this.operation = prepared.operation;
    // A traced attempt's `traceparent` is its own: the prepared headers serve every attempt on the route.
    this.headers = request.ctx.record.trace ? { ...prepared.headers } : prepared.headers;
    this.body = prepared.body;
    this.model = prepared.model;
    this.abort = request.ctx.controller;
    this.stream = request.info.stream;
    this.maxResponseBytes = request.state.config.server.maxResponseBytes;
  }

  holdAnswer(bytes: number): void {
    this.request.ctx.budget.holdAnswer(bytes);
  }

  get json(): Record<string, unknown> {
    return this.prepared.json ?? this.request.body.get();
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }
}

/** Every field always present, so the relay reads one shape of context. */
function relayContext(r: ModelRequest, provider: Provider, prepared: Prepared): RelayContext {
  return {
    res: r.ctx.res,
    protocol: r.protocol,
    record: r.ctx.record,
    signal: r.ctx.controller,
    provider,
    translation: prepared.translation,
    maxResponseBytes: r.state.config.server.maxResponseBytes,
  };
}

/** `application/json`, and the `+json` types such as `application/problem+json`. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * A non-2xx answer: its body read (bounded) so the connection can be reused, and turned into the
 * error it means. On a passthrough route the error also keeps the provider's body whole, for the
 * caller: clients match the provider's wording (Claude Code retries without thinking on it).
 */
async function httpFailure(r: ModelRequest, route: Route, upstream: UpstreamResponse): Promise<GatewayError> {
  const { provider } = route;
  attemptAnswered(r.ctx.record, upstream);
  // Some servers echo the key they were sent, and the text goes to the client, the log and the inspector too.
  const text = scrubCredential(await readText(upstream, ERROR_BODY_LIMIT, r.ctx.controller.signal), provider.config);
  upstreamChunk(r.ctx.record, text);
  const err = provider.toError
    ? provider.toError(upstream.status, upstream.headers, text)
    : new GatewayError('upstream_error', `Provider '${provider.id}' answered with HTTP ${upstream.status}.`);
  const contentType = upstream.headers['content-type'];
  // Passed on as it came: the provider's own JSON error (an HTML page from a proxy in front of it
  // says less than the gateway's message), keeping the provider's status (a refused credential is
  // made 502), and not cut at the cap (a cut text is at least the cap long).
  const passed =
    !route.plan.translator &&
    err.status === upstream.status &&
    typeof contentType === 'string' &&
    JSON_TYPE.test(contentType) &&
    Buffer.byteLength(text) < ERROR_BODY_LIMIT;
  return passed ? withOptions(err, { upstreamBody: { text, contentType } }) : err;
}

/** The error with some of its options replaced. */
function withOptions(err: GatewayError, options: Pick<GatewayErrorOptions, 'headers' | 'upstreamBody'>): GatewayError {
  return new GatewayError(err.kind, err.message, {
    status: err.status,
    param: err.param,
    code: err.code,
    ...(err.upstreamType !== undefined ? { upstreamType: err.upstreamType } : {}),
    ...(err.upstreamStatus !== undefined ? { upstreamStatus: err.upstreamStatus } : {}),
    ...(err.upstreamBody !== undefined ? { upstreamBody: err.upstreamBody } : {}),
    ...(err.headers !== undefined ? { headers: err.headers } : {}),
    cause: err.cause,
    ...options,
  });
}
