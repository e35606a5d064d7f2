/**
 * The request pipeline, one step per call: route, authenticate, read, validate,
 * resolve the model, authorize, plan, forward, relay. Each step throws a
 * GatewayError where it finds a problem; the catch here renders it in the
 * caller's protocol.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticateThrottled } from '../auth/throttle.js';
import { checkGroupCaps } from '../auth/group-caps.js';
import type { Config, GatewayKey, KeyGroupConfig } from '../config/types.js';
import { GatewayError, authenticationFailed, invalidRequest } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { RequestRecord } from '../log/record.js';
import { renderError } from '../protocols/errors.js';
import { protocolSpecs } from '../protocols/registry.js';
import { errorFamily, type Protocol } from '../protocols/types.js';
import { CallAbort } from '../providers/abort.js';
import { estimateInputTokens } from '../protocols/messages/estimate-tokens.js';
import { parseRequestBody, readBody } from './body.js';
import { deadline, type Deadline } from './deadlines.js';
import { byteBudget, type ByteBudget } from './load.js';
import { hasLimits, takePlace } from '../pipeline/admit.js';
import { modelsBody } from './models.js';
import { checkServable, forward, primaryRoute, type Forwarding, type Route } from './forward.js';
import { bodyTree } from './body-tree.js';
import { closeAfterResponse, sendJson } from './respond.js';
import { pathOf, route, type Endpoint } from './routes.js';
import { checkHostAndOrigin, pageAllowed } from './host-guard.js';
import { printable, printableLines } from '../log/terminal-text.js';
import type { GatewayState, HandlerDeps } from '../pipeline/context.js';
import {
  answerBody,
  answerHead,
  answeredLocally,
  bodyParsed,
  bodyRead,
  keyIdentified,
  protocolKnown,
  requestEnded,
  requestFailed,
  requestStarted,
  type RecordSource,
} from '../pipeline/events.js';

const ANTHROPIC_VERSION = /^\d{4}-\d{2}-\d{2}$/;

/** Request ids: a random prefix per handler and a counter, so no entropy is drawn per request. */
function requestIds(): () => string {
  const prefix = `req_${randomBytes(6).toString('hex')}`;
  let n = 0;
  return () => `${prefix}${(++n).toString(36).padStart(6, '0')}`;
}

/** Before routing succeeds, guess which protocol's error shape the caller reads. */
function guessProtocol(path: string, req: IncomingMessage): Protocol {
  return path.startsWith('/v1/messages') || req.headers['anthropic-version'] !== undefined ? 'messages' : 'chat';
}

/**
 * The request handler. `closed` is called once the response has closed, after the request's own
 * bookkeeping: the server counts its requests in flight with it. One 'close' listener per
 * response rather than two spares the second's array of listeners (a cold request's first byte
 * waits for every listener added before its upstream call).
 */
export function createHandler(getState: () => GatewayState, deps: HandlerDeps) {
  const records: RecordSource = { newId: requestIds(), captureLimit: deps.captureLimit };
  return function handle(req: IncomingMessage, res: ServerResponse, closed: () => void): void {
    const path = pathOf(req.url);
    for (const mount of deps.mounts) {
      if (path.startsWith(mount.prefix) && (path.length === mount.prefix.length || path.charCodeAt(mount.prefix.length) === 0x2f)) {
        res.on('close', closed);
        // A mount's page (the inspector) is guarded like the API; it reads no request body, so `100 Continue` is never sent.
        if (!pageAllowed(req, res, deps.listening.loopback, getState().config.server.allowedHosts)) return;
        mount.handle(req, res);
        return;
      }
    }
    const record = requestStarted(req, path, records);
    // One close listener per request: a client gone before the end cancels the upstream call, the line is
    // logged, and the server counts the request out.
    const upstream: UpstreamCall = {};
    res.on('close', () => {
      // A body read whole was left paused before its end (see readBody): it ends now. One refused
      // part-way (413) stays paused, so the rest of the upload is not read.
      if (req.complete && !req.readableEnded) req.resume();
      const left = requestEnded(record, res);
      upstream.deadline?.cancel();
      upstream.leave?.(record);
      if (left) upstream.controller?.abort();
      // Logging and observers run outside any promise: whatever they throw must not take the server down.
      try {
        deps.logger.request(record);
        for (const o of deps.observers) o.requestEnded(record);
      } catch (err) {
        deps.logger.info(`could not log ${record.id}: ${printable(err instanceof Error ? err.message : String(err))}`);
      }
      closed();
    });
    for (const o of deps.observers) o.requestStarted?.(record);

    const fail = (err: unknown) => sendError(res, err, record.protocol ?? guessProtocol(path, req), record, deps.logger);
    try {
      serve(req, res, record, getState(), deps, upstream)?.catch(fail);
    } catch (err) {
      fail(err);
    }
  };
}

/** The upstream call of a request, once there is one, so the request's close listener can cancel it. */
interface UpstreamCall {
  controller?: CallAbort;
  /** The provider's cap on the call's total time. */
  deadline?: Deadline;
  /** Gives back what the request holds (its place in the server's and its group's limits). */
  leave?: (record: RequestRecord) => void;
  /** The request's share of the gateway's buffered bytes: its body, then an answer read whole. */
  budget?: ByteBudget;
}

/** Answers at once, or returns the promise of a proxied answer; throws or rejects with what went wrong. */
function serve(
  req: IncomingMessage,
  res: ServerResponse,
  record: RequestRecord,
  state: GatewayState,
  deps: HandlerDeps,
  upstream: UpstreamCall,
): Promise<void> | undefined {
  // Before routing and authentication: a refused page learns nothing, not even which paths exist.
  checkHostAndOrigin(req, deps.listening.loopback, state.config.server.allowedHosts);
  const endpoint = route(req.method, record.path);
  switch (endpoint.kind) {
    case 'health':
      sendJson(res, 200, { status: 'ok' }, {}, record);
      return undefined;
    case 'root':
      sendJson(res, 200, {
        name: 'model-gateway',
        version: deps.version,
        endpoints: ['/v1/responses', '/v1/chat/completions', '/v1/messages', '/v1/messages/count_tokens', '/v1/models'],
      }, {}, record);
      return undefined;
    case 'models': {
      const anthropic = req.headers['anthropic-version'] !== undefined;
      protocolKnown(record, anthropic ? 'messages' : 'chat');
      const { group } = identify(state.config, req, record, 'anthropic', deps);
      sendJson(res, 200, modelsBody(state.config, group, anthropic ? 'anthropic' : 'openai', endpoint.id, deps.startedAt), {}, record);
      return undefined;
    }
    case 'create':
    case 'count_tokens':
      return proxy(req, res, record, state, endpoint, upstream, deps);
  }
}

function identify(config: Config, req: IncomingMessage, record: RequestRecord, style: 'anthropic' | 'bearer', deps: HandlerDeps) {
  const key: GatewayKey = authenticateThrottled(deps.authFailures, config, req, style);
  keyIdentified(record, key);
  const group: KeyGroupConfig | undefined = config.keyGroups.get(key.group);
  // Normalisation builds keys from groups, so this only guards a hand-built Config.
  if (!group) throw authenticationFailed('Invalid API key.');
  return { key, group };
}

async function proxy(
  req: IncomingMessage,
  res: ServerResponse,
  record: RequestRecord,
  state: GatewayState,
  endpoint: Extract<Endpoint, { kind: 'create' | 'count_tokens' }>,
  call: UpstreamCall,
  deps: HandlerDeps,
) {
  const { config } = state;
  const protocol = endpoint.protocol;
  const operation = endpoint.kind;
  protocolKnown(record, protocol);

  const { group } = identify(config, req, record, protocol === 'messages' ? 'anthropic' : 'bearer', deps);
  if (protocol === 'messages') {
    const version = req.headers['anthropic-version'];
    if (typeof version !== 'string' || !ANTHROPIC_VERSION.test(version)) {
      throw invalidRequest(
        version === undefined
          ? 'Missing required header: anthropic-version (for example `anthropic-version: 2023-06-01`).'
          : `Invalid anthropic-version header '${String(version)}': expected a date such as 2023-06-01.`,
      );
    }
  }

  const place = takePlace(deps, config.server);
  call.leave = (r) => place.leave((r.usage?.inputTokens ?? 0) + (r.usage?.outputTokens ?? 0));
  // Model calls only are counted against the group's limits: counting tokens is cheap and often answered locally.
  if (operation === 'create' && hasLimits(group)) {
    // A promise only when the store answers later: awaiting a synchronous answer would cost every request a microtask turn.
    const admitting = place.admit(group);
    // A client that left while the store decided gets no body read and no upstream call.
    if (admitting && !(await admitting)) return;
  }
  const budget = byteBudget(deps.load, config.server);
  call.budget = budget;
  const leave = call.leave!;
  call.leave = (r) => {
    budget.giveBack();
    leave(r);
  };
  // Routed, authenticated and admitted: only now may a client waiting on `Expect: 100-continue` send its body.
  if (expectsContinue(req) && !res.headersSent) res.writeContinue();
  const raw = await readBody(req, config.server.maxBodyBytes, budget);
  const planned = afterBody(req, res, record, state, group, endpoint, raw, call);
  if (planned) await forward(planned, planned.primary);
}

/**
 * Parses, inspects and routes the body read, and answers what needs no upstream call. A function
 * of its own so that the parsed body is not a local of `proxy`, kept alive while the request is
 * forwarded: only the Forwarding's BodyTree holds it, and passthrough releases it.
 */
function afterBody(
  req: IncomingMessage,
  res: ServerResponse,
  record: RequestRecord,
  state: GatewayState,
  group: KeyGroupConfig,
  endpoint: Extract<Endpoint, { kind: 'create' | 'count_tokens' }>,
  raw: Buffer,
  call: UpstreamCall,
): (Forwarding & { readonly primary: Route }) | undefined {
  const { protocol, kind: operation } = endpoint;
  bodyRead(record, raw);
  const { json, modelAt } = parseRequestBody(raw);
  const info = protocolSpecs[protocol].inspect(json, operation, state.config.server);
  bodyParsed(record, info);
  const body = bodyTree(raw, json as Record<string, unknown>);

  const primary = primaryRoute(state, group, protocol, info, operation);
  if (operation === 'create') checkGroupCaps(group, protocol, body.get());
  // Counting tokens needs no upstream when the provider does not speak Messages: it cannot count.
  if (operation === 'count_tokens' && primary.plan.translator) {
    answeredLocally(record, primary.target.provider.id);
    sendJson(res, 200, { input_tokens: estimateInputTokens(body.get()) }, { 'x-model-gateway-token-estimate': 'true' }, record);
    return undefined;
  }
  checkServable({ protocol, body, info }, primary);

  // A client that left while its body was read or checked gets no upstream call at all.
  if (res.destroyed) return undefined;
  const controller = new CallAbort();
  call.controller = controller;
  return {
    req,
    record,
    state,
    group,
    protocol,
    operation,
    info,
    raw,
    modelAt,
    body,
    controller,
    res,
    budget: call.budget!,
    armDeadline: (ms) => {
      call.deadline?.cancel();
      call.deadline = deadline(ms, () => {
        controller.abort(
          new GatewayError('timeout', `Provider '${record.provider ?? '?'}' did not finish within ${ms / 1000}s (its timeouts.totalMs).`),
        );
      });
    },
    primary,
  };
}

/** What Node takes for an `Expect: 100-continue` request (it then waits for the handler's writeContinue). */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;
function expectsContinue(req: IncomingMessage): boolean {
  const expect = req.headers.expect;
  return expect !== undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && CONTINUE.test(expect);
}

function sendError(res: ServerResponse, err: unknown, protocol: Protocol, record: RequestRecord, logger: Logger): void {
  if (res.destroyed || res.writableEnded) return;
  const gatewayError =
    err instanceof GatewayError ? err : new GatewayError('internal', 'The gateway failed to handle this request.', { cause: err });
  requestFailed(record, gatewayError.message);
  if (!(err instanceof GatewayError)) {
    // The message may quote the request: printed escaped, its stack's line breaks kept.
    logger.info(`internal error in ${record.id}: ${printableLines(err instanceof Error ? (err.stack ?? err.message) : String(err))}`);
  }
  if (res.headersSent) {
    // Only the relay writes after headers, and it ends its own streams; reaching here means a bug, so just close.
    res.destroy();
    return;
  }
  const upstreamFamily = record.upstreamProtocol ? errorFamily(record.upstreamProtocol) : undefined;
  const rendered = renderError(gatewayError, protocol, {
    requestId: record.id,
    ...(gatewayError.upstreamType && upstreamFamily ? { upstreamFamily } : {}),
  });
  if (rendered.headers.connection === 'close') closeAfterResponse(res);
  const headers = { ...rendered.headers, 'content-length': Buffer.byteLength(rendered.body) };
  answerHead(record, rendered.status, headers);
  answerBody(record, rendered.body);
  res.writeHead(rendered.status, headers);
  res.end(rendered.body);
}
