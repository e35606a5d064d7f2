/**
 * Sends a request upstream and relays the answer, retrying and falling back while
 * nothing has reached the client yet. A route is a model the request may be served
 * by (the one asked for, then its fallbacks); each route is tried up to its
 * provider's `retries + 1` times, with the SDKs' backoff (see retry-policy.ts).
 * Once an upstream answers 2xx the relay starts and the gateway is committed: a
 * failure after that is reported in-band, never retried.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { authorizeFeatures, authorizeModel } from '../auth/authorize.js';
import type { KeyGroupConfig } from '../config/types.js';
import { GatewayError, invalidRequest } from '../errors.js';
import type { Feature, Protocol, RequestInfo } from '../protocols/types.js';
import type { CallAbort } from '../providers/abort.js';
import type { Operation, Provider, UpstreamRequest, UpstreamResponse } from '../providers/types.js';
import { scrubCredential, upstreamHttpError } from '../providers/upstream-error.js';
import { ERROR_BODY_LIMIT } from '../providers/whole-answer.js';
import { resolveModel, type Target } from '../routing/resolve-model.js';
import type { TranslateContext } from '../translate/ir.js';
import { planUpstream, type Plan } from '../translate/plan.js';
import { renameModel } from '../translate/rename-model.js';
import { addNumberField } from '../translate/add-field.js';
import { outputCapField, outputCapToAdd } from '../auth/group-caps.js';
import type { RequestRecord } from '../log/record.js';
import type { GatewayState } from '../pipeline/context.js';
import { attemptAnswered, attemptFailed, attemptStarted, routeChosen, upstreamChunk } from '../pipeline/events.js';
import { relay } from '../pipeline/relay/relay.js';
import type { RelayContext, Translation } from '../pipeline/relay/context.js';
import type { BodyTree } from './body-tree.js';
import type { ByteBudget } from './load.js';
import { isRetryable, retryAfterMs, retryDelayMs, shouldFallBack } from './retry-policy.js';
import { readText } from './upstream-body.js';
import { upstreamHeaders } from './upstream-headers.js';

const REASONING: ReadonlySet<Feature> = new Set(['reasoning']);
const NONE: ReadonlySet<Feature> = new Set();

/** A model the request may be served by, and how it gets there. */
export interface Route {
  /** The gateway model name (the requested one, or a fallback's). */
  readonly name: string;
  readonly target: Target;
  readonly plan: Plan;
  readonly provider: Provider;
  /** Translated to a model without reasoning: the request goes without it. */
  readonly dropReasoning: boolean;
}

/** The request being forwarded: what was read and decided before the first upstream call. */
export interface Forwarding {
  readonly req: IncomingMessage;
  readonly record: RequestRecord;
  readonly state: GatewayState;
  readonly group: KeyGroupConfig;
  readonly protocol: Protocol;
  readonly operation: Operation;
  readonly info: RequestInfo;
  readonly raw: Buffer;
  /** Where the caller's `model` value sits in `raw`, when parsing found that already. */
  readonly modelAt: [number, number] | undefined;
  /** The parsed body; passthrough releases it once its bytes are ready (see body-tree.ts). */
  readonly body: BodyTree;
  /** Aborted when the client goes away, or with a GatewayError when the total time runs out. */
  readonly controller: CallAbort;
  readonly res: ServerResponse;
  /** The request's share of the gateway's buffered bytes, which an answer read whole counts against too. */
  readonly budget: ByteBudget;
  /** Arms the overall cap of a route's provider (replacing the previous one). */
  readonly armDeadline: (ms: number) => void;
}

/** The route for the requested model; its errors (403, 400) are the caller's answer. */
export function primaryRoute(state: GatewayState, group: KeyGroupConfig, protocol: Protocol, info: RequestInfo, operation: Operation): Route {
  return routeTo(state, group, info.model, protocol, info, operation);
}

/**
 * The routes a state's requests took, by key group, protocol and model name. Everything about a route but the
 * features a request asks for follows from those, and working it out again (glob matches, the plan, the
 * group's checks) would delay every request's upstream call. A new state (a reload) starts
 * empty. Names come from clients and globs match without end, so each table keeps its first few.
 */
const routeTables = new WeakMap<GatewayState, Map<KeyGroupConfig, Record<Protocol, Map<string, Route>>>>();
const NAMES_PER_TABLE = 256;

function routeTable(state: GatewayState, group: KeyGroupConfig, protocol: Protocol): Map<string, Route> {
  let byGroup = routeTables.get(state);
  if (byGroup === undefined) {
    byGroup = new Map();
    routeTables.set(state, byGroup);
  }
  let byProtocol = byGroup.get(group);
  if (byProtocol === undefined) {
    byProtocol = { responses: new Map(), chat: new Map(), messages: new Map() };
    byGroup.set(group, byProtocol);
  }
  return byProtocol[protocol];
}

function routeTo(state: GatewayState, group: KeyGroupConfig, name: string, protocol: Protocol, info: RequestInfo, operation: Operation): Route {
  const table = routeTable(state, group, protocol);
  let route = table.get(name);
  if (route === undefined) {
    route = makeRoute(state, group, name, protocol);
    if (table.size < NAMES_PER_TABLE) table.set(name, route);
  }
  authorizeFeatures(group, route.target.model, name, operation === 'create' ? info.features : [], route.dropReasoning ? REASONING : NONE);
  return route;
}

/** Throws what this group may not do with this model in this protocol, whatever the request asks for. */
function makeRoute(state: GatewayState, group: KeyGroupConfig, name: string, protocol: Protocol): Route {
  const target = resolveModel(state.config, name);
  const plan = planUpstream(protocol, target.provider);
  // Claude Code and Codex always ask for reasoning; translated to a model without it, the request goes without.
  const dropReasoning = plan.translator !== undefined && !target.model.features.has('reasoning');
  authorizeModel(group, target.model, name, protocol);
  const provider = state.providers.get(target.provider.id);
  if (!provider) throw new GatewayError('internal', `Provider '${target.provider.id}' is not running.`);
  return { name, target, plan, provider, dropReasoning };
}

/** The fallbacks this caller may use, in order; one it may not use (or that cannot serve this request) is skipped. */
function* fallbackRoutes(f: Forwarding, primary: Route): Generator<Route> {
  for (const name of primary.target.model.fallbacks) {
    try {
      const route = routeTo(f.state, f.group, name, f.protocol, f.info, f.operation);
      checkServable(f, route);
      yield route;
    } catch {
      // Unknown, not allowed for this key group, or unable to serve this request: not a candidate.
    }
  }
}

/** Requests a translated route cannot serve at all, refused before anything is sent. */
export function checkServable(f: Pick<Forwarding, 'protocol' | 'body' | 'info'>, route: Route): void {
  if (route.plan.translator && f.protocol === 'responses' && f.body.get().previous_response_id != null) {
    throw invalidRequest(
      `previous_response_id needs the conversation stored server-side, and model '${f.info.model}' is served through ` +
        `${route.plan.upstreamProtocol === 'chat' ? 'Chat Completions' : 'the Messages API'}, which keeps none. ` +
        'Send the whole conversation in `input` (with store: false), as Codex does.',
      'previous_response_id',
    );
  }
}

/** What goes upstream on a route: the bytes, and how to bring the answer back. */
interface Prepared {
  readonly body: Buffer;
  /** The translated request; undefined for passthrough, which sends the caller's own. */
  readonly json: Record<string, unknown> | undefined;
  readonly translation: Translation | undefined;
}

function prepare(f: Forwarding, route: Route): Prepared {
  const { plan, target } = route;
  // A request of a capped group that names no output limit goes with the cap (see group-caps.ts).
  const cap = outputCapToAdd(f.group, f.protocol, f.operation, f.body.get);
  if (!plan.translator) {
    const renamed = renameModel(f.raw, f.body.get(), target.upstreamModel, f.modelAt);
    if (cap === undefined) return { body: renamed, json: undefined, translation: undefined };
    const field = outputCapField(f.protocol, target.provider.type);
    return { body: addNumberField(renamed, f.body.get(), field, cap, target.upstreamModel), json: undefined, translation: undefined };
  }
  const ctx = translateContext(f.protocol, plan.upstreamProtocol, f.info.model, target, route.dropReasoning);
  const callerBody = cap === undefined ? f.body.get() : { ...f.body.get(), [outputCapField(f.protocol, 'translated')]: cap };
  const json = plan.translator.request(callerBody, ctx);
  const headers: Record<string, string> = { 'x-model-gateway-translated': `${f.protocol}->${plan.upstreamProtocol}` };
  if (ctx.warnings.length > 0) {
    // Header values must be visible ASCII; the phrases are meant to be, this keeps a stray character from failing the request.
    headers['x-model-gateway-dropped'] = [...new Set(ctx.warnings)].join(', ').replace(/[^\x20-\x7e]/g, '?');
  }
  return {
    body: Buffer.from(JSON.stringify(json)),
    json,
    translation: { translator: plan.translator, ctx, callerBody, stream: f.info.stream, headers },
  };
}

function translateContext(caller: Protocol, upstream: Protocol, requestedModel: string, target: Target, dropReasoning: boolean): TranslateContext {
  const type = target.provider.type;
  return {
    ...(dropReasoning ? { reasoningUnsupported: true } : {}),
    caller,
    upstream,
    requestedModel,
    upstreamModel: target.upstreamModel,
    ...(target.model.maxOutputTokens !== undefined ? { maxOutputTokens: target.model.maxOutputTokens } : {}),
    upstreamDialect: type === 'anthropic' ? 'anthropic' : type === 'openai-compatible' ? 'compatible' : 'openai',
    now: Date.now,
    newId: (prefix) => `${prefix}${randomBytes(12).toString('hex')}`,
    warnings: [],
    toolNames: new Map(),
  };
}

/** Tries the primary route, then its fallbacks, until one answers 2xx; relays that answer. */
export async function forward(f: Forwarding, primary: Route): Promise<void> {
  let failure: unknown;
  let sent = 0;
  let fallbacks: Generator<Route> | undefined;
  let route: Route | undefined = primary;
  while (route) {
    const outcome = await tryRoute(f, route);
    if (outcome === 'done') return;
    failure = outcome.failure;
    sent += outcome.attempts;
    if (f.controller.aborted || !shouldFallBack(failure)) break;
    // Made only when the primary failed: most requests never need a fallback.
    fallbacks ??= fallbackRoutes(f, primary);
    route = fallbacks.next().value;
  }
  const reason: unknown = f.controller.reason;
  if (reason instanceof GatewayError) throw reason; // The total time ran out.
  if (f.controller.aborted) return; // The client left; nobody to answer.
  // Tell the caller's SDK not to retry what the gateway already retried.
  throw sent > 1 && failure instanceof GatewayError ? withHeaders(failure, { 'x-should-retry': 'false' }) : failure;
}

type Outcome = 'done' | { readonly failure: unknown; readonly attempts: number };

async function tryRoute(f: Forwarding, route: Route): Promise<Outcome> {
  const { record, controller } = f;
  const provider = route.provider;
  const prepared = prepare(f, route);
  // Passthrough sends bytes from here on: the parsed body can go (see body-tree.ts).
  if (!prepared.translation) f.body.release();
  routeChosen(record, route, prepared.translation?.ctx.warnings);
  const retries = provider.config.retries;
  let failure: unknown;
  let attempts = 0;
  // Armed before the first call rather than after it: undici writes a call on a reused connection later in
  // the same turn anyway, so arming after would gain nothing for a flag's worth of state.
  f.armDeadline(provider.config.timeouts.totalMs);
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) {
      const delay = retryDelayMs(attempt, failure instanceof GatewayError ? retryAfterMs(failure.headers) : undefined);
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
      upstream = await send(f, route, prepared);
    } catch (err) {
      failure = err;
      attemptFailed(record, route, err);
      if (controller.aborted || !isRetryable(err)) break;
      continue;
    }
    if (upstream.status >= 200 && upstream.status < 300) {
      try {
        await relay(relayContext(f, provider, prepared.translation), upstream);
        return 'done';
      } catch (err) {
        // A whole (non-streaming) answer that broke off while being read has sent the client nothing yet: retry it.
        if (f.res.headersSent || controller.aborted || !isRetryable(err)) throw err;
        failure = err;
        attemptFailed(record, route, err);
        continue;
      }
    }
    failure = await httpFailure(f, route, upstream);
    attemptFailed(record, route, failure);
    if (!isRetryable(failure)) break;
  }
  return { failure, attempts };
}

function send(f: Forwarding, route: Route, prepared: Prepared): Promise<UpstreamResponse> {
  const headers = upstreamHeaders(f.req.headers, route.plan.upstreamProtocol);
  attemptStarted(f.record, route, { headers, body: prepared.body });
  return route.provider.send(
    new Outgoing(
      route.plan.upstreamProtocol,
      f.operation,
      headers,
      prepared.body,
      prepared.json,
      f.body,
      f.controller,
      f.info.stream,
      f.state.config.server.maxResponseBytes,
      f.budget,
    ),
  );
}

/**
 * A provider's request. A class so that `signal` and `json`, made only if the provider reads
 * them (the echo provider does; HTTP uses `abort` and `body`), are getters on the prototype: a
 * getter in an object literal sends each request's object through V8's runtime into
 * dictionary mode.
 */
class Outgoing implements UpstreamRequest {
  constructor(
    readonly protocol: Protocol,
    readonly operation: Operation,
    readonly headers: Record<string, string>,
    readonly body: Buffer,
    private readonly translated: Record<string, unknown> | undefined,
    private readonly caller: BodyTree,
    readonly abort: CallAbort,
    readonly stream: boolean,
    readonly maxResponseBytes: number,
    private readonly budget: ByteBudget,
  ) {}

  holdAnswer(bytes: number): void {
    this.budget.holdAnswer(bytes);
  }

  get json(): Record<string, unknown> {
    return this.translated ?? this.caller.get();
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }
}

/** Every field always present, so the relay reads one shape of context. */
function relayContext(f: Forwarding, provider: Provider, translation: Translation | undefined): RelayContext {
  return {
    res: f.res,
    protocol: f.protocol,
    record: f.record,
    signal: f.controller,
    provider,
    translation,
    maxResponseBytes: f.state.config.server.maxResponseBytes,
  };
}

/** A non-2xx answer: its body read (bounded) so the connection can be reused, and turned into the error it means. */
async function httpFailure(f: Forwarding, route: Route, upstream: UpstreamResponse): Promise<GatewayError> {
  attemptAnswered(f.record, upstream);
  const text = scrubCredential(await readText(upstream, ERROR_BODY_LIMIT, f.controller.signal), route.provider.config);
  upstreamChunk(f.record, text);
  return upstreamHttpError(route.provider.config, upstream.status, upstream.headers, text);
}

function withHeaders(err: GatewayError, headers: Record<string, string>): GatewayError {
  return new GatewayError(err.kind, err.message, {
    status: err.status,
    param: err.param,
    code: err.code,
    ...(err.upstreamType !== undefined ? { upstreamType: err.upstreamType } : {}),
    ...(err.upstreamStatus !== undefined ? { upstreamStatus: err.upstreamStatus } : {}),
    headers: { ...err.headers, ...headers },
    cause: err.cause,
  });
}
