/**
 * One request, step by step: mounts, the context, then the steps in the order they happen
 * (host guard, endpoint, authenticate, admit, read, inspect, route, attempts). Each step throws
 * a GatewayError where it finds a problem; the one catch here renders it in the caller's
 * protocol. One close listener per request runs what the steps left to give back (the context's
 * cleanup list), logs the request and tells the observers.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkGroupCaps } from '../auth/group-caps.js';
import { authenticateThrottled } from '../auth/throttle.js';
import type { KeyGroupConfig } from '../config/types.js';
import { assertNever } from '../assert-never.js';
import { authenticationFailed, GatewayError } from '../errors.js';
import { printable, printableLines } from '../log/terminal-text.js';
import { renderError } from '../protocols/errors.js';
import type { ProtocolModule } from '../protocols/protocol.js';
import { likelyProtocol, protocols } from '../protocols/registry.js';
import type { KeyStyle } from '../protocols/types.js';
import { CallAbort } from '../providers/abort.js';
import { checkServable, primaryRoute } from '../routing/route.js';
import { checkHostAndOrigin, pageAllowed } from '../server/host-guard.js';
import { closeAfterResponse, sendJson } from '../server/respond.js';
import { hasLimits, leavePlace, takePlace } from './admit.js';
import { abortIfLeft, runAttempts } from './attempts.js';
import { bodyTree } from './body-tree.js';
import { admitsWithReservation, reserveBudget } from './budget.js';
import { answerCount } from './count-tokens.js';
import { type GatewayState, type HandlerDeps, RequestContext, type Served } from './context.js';
import { endpointOf, listedPaths, pathOf, queryOf, type Endpoint } from './endpoints.js';
import {
  answerBody,
  answerHead,
  bodyParsed,
  bodyRead,
  keyIdentified,
  operationKnown,
  protocolKnown,
  requestEnded,
  requestFailed,
} from './events.js';
import { type ModelRequest, modelContext } from './model-request.js';
import { modelsBody } from './models.js';
import { expectsContinue, giveBackBudget, byteBudget, parseRequestBody, readBody } from './read.js';

type CallEndpoint = Extract<Endpoint, { kind: 'call' }>;

/** Request ids: a random prefix per handler and a counter, so no entropy is drawn per request. */
function requestIds(): () => string {
  const prefix = `req_${randomBytes(6).toString('hex')}`;
  let n = 0;
  return () => `${prefix}${(++n).toString(36).padStart(6, '0')}`;
}

/**
 * The request handler. `closed` is called once the response has closed, after the request's own
 * cleanups: the server counts its requests in flight with it. One 'close' listener per
 * response rather than two spares the second's array of listeners (a cold request's first byte
 * waits for every listener added before its upstream call).
 */
export function createHandler(getState: () => GatewayState, deps: HandlerDeps) {
  const tracer = deps.tracer;
  const records = { newId: requestIds(), captureLimit: deps.captureLimit, ...(tracer ? { trace: (req: IncomingMessage) => tracer.begin(req) } : {}) };
  const served: Served = { getState, deps, records };
  return function handle(req: IncomingMessage, res: ServerResponse, closed: () => void): void {
    const mount = mountFor(deps, req.url);
    if (mount) {
      res.on('close', closed);
      // A mount's page (the inspector) is guarded like the API; it reads no request body, so `100 Continue` is never sent.
      if (pageAllowed(req, res, deps.listening.loopback, getState().config.server.allowedHosts)) mount.handle(req, res);
      return;
    }
    const ctx = new RequestContext(req, res, served);
    ctx.closed = closed;
    (res as ServedResponse)[CONTEXT] = ctx;
    res.on('close', responseClosed);
    for (const o of deps.observers) o.requestStarted?.(ctx.record);
    try {
      // A model call's promise never rejects: callModel renders its own errors.
      void serve(ctx);
    } catch (err) {
      sendError(ctx, err);
    }
  };
}

/**
 * The response carries its request's context, so that its close listener is one function made once rather
 * than a closure per request (docs/performance.md, "A small request's allocations").
 */
const CONTEXT = Symbol('request context');
type ServedResponse = ServerResponse & { [CONTEXT]: RequestContext };
function responseClosed(this: ServerResponse): void {
  requestClosed((this as ServedResponse)[CONTEXT]);
}

function mountFor(deps: HandlerDeps, url: string | undefined) {
  if (deps.mounts.length === 0) return undefined;
  const path = pathOf(url);
  for (const mount of deps.mounts) {
    if (path.startsWith(mount.prefix) && (path.length === mount.prefix.length || path.charCodeAt(mount.prefix.length) === 0x2f)) return mount;
  }
  return undefined;
}

/** The response closed: what the steps took is given back, the request is logged, and the server counts it out. */
function requestClosed(ctx: RequestContext): void {
  const { req, record, deps } = ctx;
  // A body read whole was left paused before its end (see readBody): it ends now. One refused
  // part-way (413) stays paused, so the rest of the upload is not read.
  if (req.complete && !req.readableEnded) req.resume();
  ctx.left = requestEnded(record, ctx.res, ctx.price);
  const cleanups = ctx.cleanups;
  for (let i = cleanups.length - 1; i >= 0; i--) cleanups[i]!(ctx);
  // Logging and observers run outside any promise: whatever they throw must not take the server down.
  try {
    deps.logger.request(record);
    for (const o of deps.observers) o.requestEnded(record);
  } catch (err) {
    deps.logger.info(`could not log ${record.id}: ${printable(err instanceof Error ? err.message : String(err))}`);
  }
  ctx.closed();
}

/** Answers at once (throwing what went wrong), or returns the promise of a model request's answer, which renders its own errors. */
function serve(ctx: RequestContext): Promise<void> | undefined {
  const { req, res, record, state, deps } = ctx;
  // Before the endpoint and authentication: a refused page learns nothing, not even which paths exist.
  checkHostAndOrigin(req, deps.listening.loopback, state.config.server.allowedHosts);
  const endpoint = endpointOf(req.method, record.path);
  switch (endpoint.kind) {
    case 'health':
      sendJson(res, 200, { status: 'ok' }, {}, record);
      return undefined;
    case 'root':
      sendJson(res, 200, {
        name: 'model-gateway',
        version: deps.version,
        endpoints: listedPaths,
      }, {}, record);
      return undefined;
    case 'models': {
      // One list for every protocol, in the shape of the caller's (Anthropic's callers send their marker
      // header; Google's theirs, or their key in the query, or ask at Google's path).
      const protocol = protocols[callerOf(ctx)];
      protocolKnown(record, protocol.id);
      // A Bearer caller's list takes `x-api-key` too, as it always has.
      identify(ctx, protocol.keyStyle === 'bearer' ? 'anthropic' : protocol.keyStyle);
      sendJson(res, 200, modelsBody(ctx, protocol.errorFamily, endpoint.id), {}, record);
      return undefined;
    }
    case 'call':
      return callModel(ctx, endpoint);
    default:
      return assertNever(endpoint);
  }
}

/** The protocol a request not at one of a protocol's endpoints most likely comes from (see likelyProtocol). */
function callerOf(ctx: RequestContext) {
  const { req, record } = ctx;
  return likelyProtocol(record.path, (name) => req.headers[name] !== undefined, (name) => queryOf(req.url).has(name));
}

/** The caller's key, by the protocol's style, and its key group. */
function identify(ctx: RequestContext, style: KeyStyle): KeyGroupConfig {
  const { config } = ctx.state;
  const key = authenticateThrottled(ctx.deps.authFailures, config, ctx.req, style);
  keyIdentified(ctx.record, key);
  ctx.key = key;
  const group = config.keyGroups.get(key.group);
  // Normalisation builds keys from groups, so this only guards a hand-built Config.
  if (!group) throw authenticationFailed('Invalid API key.');
  ctx.group = group;
  return group;
}

/** A model endpoint: authenticate, admit, read, then inspect, route and attempt; what fails is rendered here (never rejects). */
async function callModel(ctx: RequestContext, endpoint: CallEndpoint): Promise<void> {
  try {
    const { req, res, record, deps } = ctx;
    const { server } = ctx.state.config;
    const protocol: ProtocolModule = protocols[endpoint.protocol];
    protocolKnown(record, protocol.id);
    operationKnown(record, endpoint.operation);
    const group = identify(ctx, protocol.keyStyle);
    protocol.checkHeaders?.(req.headers);

    const place = takePlace(deps, server, record);
    ctx.place = place;
    ctx.cleanups.push(leavePlace);
    // Model calls only are counted against the group's limits: counting tokens is cheap and often answered locally.
    // With both kept in Redis, a request that also answers to budgets is admitted when it reserves (budget.ts).
    if (endpoint.operation !== 'count_tokens' && hasLimits(group) && !admitsWithReservation(ctx, endpoint.operation)) {
      // A promise only when the store answers later: awaiting a synchronous answer would cost every request a microtask turn.
      const admitting = place.admit(group);
      // A client that left while the store decided gets no body read and no upstream call.
      if (admitting && !(await admitting)) return;
    }
    const budget = byteBudget(deps.load, server);
    ctx.budget = budget;
    ctx.cleanups.push(giveBackBudget);
    // Authenticated and admitted at a known endpoint: only now may a client waiting on `Expect: 100-continue` send its body.
    if (expectsContinue(req) && !res.headersSent) res.writeContinue();
    const raw = await readBody(req, server.maxBodyBytes, budget);
    const request = afterBody(ctx, endpoint, raw);
    // A promise is a count answered without the attempts (count-tokens.ts).
    if (request instanceof Promise) await request;
    else if (request) {
      // Budgets are asked once the model (its price) and the body (its output cap) are known.
      const reserving = reserveBudget(request);
      if (reserving && !(await reserving)) return;
      await runAttempts(request);
    }
  } catch (err) {
    sendError(ctx, err);
  }
}

/**
 * Parses, inspects and routes the body read, and answers what needs no upstream call. A function
 * of its own so that the parsed body is not a local of `callModel`, kept alive while the request
 * is forwarded: only the ModelRequest's BodyTree holds it, and passthrough releases it.
 */
function afterBody(ctx: RequestContext, endpoint: CallEndpoint, raw: Buffer): ModelRequest | Promise<void> | undefined {
  const { record, state } = ctx;
  const { protocol, operation, params } = endpoint;
  const group = ctx.group!;
  bodyRead(record, raw);
  const { json, modelAt } = parseRequestBody(raw);
  const info = protocols[protocol].inspect({ operation, stream: endpoint.stream, url: ctx.req.url, body: json, params }, state.config.server);
  bodyParsed(record, info);
  const body = bodyTree(raw, json as Record<string, unknown>);
  const ask = { state, group, protocol, operation, info, body };
  const primary = primaryRoute(ask);
  if (operation !== 'count_tokens') checkGroupCaps(group, protocol, body.get());
  // A provider that does not speak Messages has no Messages counter: see count-tokens.ts.
  if (operation === 'count_tokens' && primary.plan.translator) return answerCount(ctx, { caller: protocol, route: primary, body: body.get() });
  checkServable(ask, primary);

  // A client that left while its body was read or checked gets no upstream call at all.
  if (ctx.res.destroyed) return undefined;
  const started = modelContext(ctx, new CallAbort());
  ctx.cleanups.push(abortIfLeft);
  return { ctx: started, state, group, protocol, operation, info, body, raw, modelAt, primary };
}

/** The one catch: what a step threw, rendered in the caller's protocol while the response has not started. */
function sendError(ctx: RequestContext, err: unknown): void {
  const { res, record } = ctx;
  if (res.destroyed || res.writableEnded) return;
  const gatewayError =
    err instanceof GatewayError ? err : new GatewayError('internal', 'The gateway failed to handle this request.', { cause: err });
  requestFailed(record, gatewayError);
  if (!(err instanceof GatewayError)) {
    // The message may quote the request: printed escaped, its stack's line breaks kept.
    ctx.deps.logger.info(`internal error in ${record.id}: ${printableLines(err instanceof Error ? (err.stack ?? err.message) : String(err))}`);
  }
  if (res.headersSent) {
    // Only the relay writes after headers, and it ends its own streams; reaching here means a bug, so just close.
    res.destroy();
    return;
  }
  const upstreamFamily = record.upstreamProtocol ? protocols[record.upstreamProtocol].errorFamily : undefined;
  const caller = record.protocol ?? callerOf(ctx);
  const rendered = renderError(gatewayError, protocols[caller].errorFamily, {
    requestId: record.id,
    ...(gatewayError.upstreamType && upstreamFamily ? { upstreamFamily } : {}),
  });
  const passed = gatewayError.upstreamBody;
  if (passed && rendered.status === gatewayError.status) {
    // The provider's own answer on a passthrough route (attempts.ts): its status, its bytes, its content type.
    // A status the caller's family does not use (a 529 to an OpenAI caller) is rendered instead.
    const headers = { ...rendered.headers, 'content-type': passed.contentType, 'content-length': Buffer.byteLength(passed.text) };
    answerHead(record, gatewayError.status, headers);
    answerBody(record, passed.text);
    res.writeHead(gatewayError.status, headers);
    res.end(passed.text);
    return;
  }
  if (rendered.headers.connection === 'close') closeAfterResponse(res);
  const headers = { ...rendered.headers, 'content-length': Buffer.byteLength(rendered.body) };
  answerHead(record, rendered.status, headers);
  answerBody(record, rendered.body);
  res.writeHead(rendered.status, headers);
  res.end(rendered.body);
}
