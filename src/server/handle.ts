/**
 * The request pipeline, one step per call: route, authenticate, read, validate,
 * resolve the model, authorize, plan, forward, relay. Each step throws a
 * GatewayError where it finds a problem; the catch here renders it in the
 * caller's protocol.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate } from '../auth/authenticate.js';
import { authorize } from '../auth/authorize.js';
import type { Config, GatewayKey, KeyGroupConfig } from '../config/types.js';
import { GatewayError, authenticationFailed, invalidRequest } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { capture, emptyBody, newExchange, type UpstreamAttempt } from '../log/exchange.js';
import type { RequestRecord } from '../log/record.js';
import { renderError } from '../protocols/errors.js';
import { protocolSpecs } from '../protocols/registry.js';
import { errorFamily, type Feature, type Protocol } from '../protocols/types.js';
import type { Provider } from '../providers/types.js';
import { resolveModel, type Target } from '../routing/resolve-model.js';
import type { TranslateContext } from '../translate/ir.js';
import { estimateInputTokens } from '../protocols/messages/estimate-tokens.js';
import { planUpstream } from '../translate/plan.js';
import { renameModel } from '../translate/rename-model.js';
import { parseJsonBody, readBody } from './body.js';
import { modelsBody } from './models.js';
import { relay } from './relay.js';
import { captureResponse, closeAfterResponse, sendJson } from './respond.js';
import { pathOf, route, type Endpoint } from './routes.js';
import { upstreamHeaders } from './upstream-headers.js';

/** What a request is served with. Replaced as a whole on reload, so a request keeps the state it started with. */
export interface GatewayState {
  readonly config: Config;
  readonly providers: ReadonlyMap<string, Provider>;
}

/** Told of every request as it starts and when it ends (the inspector is one). */
export interface RequestObserver {
  requestStarted?(record: RequestRecord): void;
  requestEnded(record: RequestRecord): void;
}

/** Pages served beside the API on the same port (the inspector), by path prefix. Their requests are not logged. */
export interface Mount {
  readonly prefix: string;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

export interface HandlerDeps {
  readonly logger: Logger;
  readonly version: string;
  /** Epoch ms the gateway started (the `created` of listed models). */
  readonly startedAt: number;
  /** Bytes of bodies captured per exchange; 0 captures nothing (nobody will look). */
  readonly captureLimit: number;
  readonly observers: readonly RequestObserver[];
  readonly mounts: readonly Mount[];
}

const ANTHROPIC_VERSION = /^\d{4}-\d{2}-\d{2}$/;
const REASONING: ReadonlySet<Feature> = new Set(['reasoning']);
const NONE: ReadonlySet<Feature> = new Set();

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

export function createHandler(getState: () => GatewayState, deps: HandlerDeps) {
  const newRequestId = requestIds();
  return function handle(req: IncomingMessage, res: ServerResponse): void {
    const path = pathOf(req.url);
    for (const mount of deps.mounts) {
      if (path === mount.prefix || path.startsWith(`${mount.prefix}/`)) return mount.handle(req, res);
    }
    const record: RequestRecord = {
      id: newRequestId(),
      startedAt: Date.now(),
      start: performance.now(),
      method: req.method ?? '?',
      path,
    };
    const ua = req.headers['user-agent'];
    if (ua) record.userAgent = ua;
    if (deps.captureLimit > 0) record.exchange = newExchange(req.headers, deps.captureLimit);
    for (const o of deps.observers) o.requestStarted?.(record);

    // One close listener per request: a client gone before the end cancels the upstream call, and the line is logged.
    const upstream: UpstreamCall = {};
    res.once('close', () => {
      record.durationMs = performance.now() - record.start;
      if (res.headersSent) record.status ??= res.statusCode;
      if (!res.writableFinished) {
        record.aborted = true;
        upstream.controller?.abort();
      }
      deps.logger.request(record);
      for (const o of deps.observers) o.requestEnded(record);
    });

    const state = getState();
    serve(req, res, record, state, deps, upstream).catch((err: unknown) => {
      const protocol = record.protocol ?? guessProtocol(path, req);
      sendError(res, err, protocol, record, deps.logger);
    });
  };
}

/** The upstream call of a request, once there is one, so the request's close listener can cancel it. */
interface UpstreamCall {
  controller?: AbortController;
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  record: RequestRecord,
  state: GatewayState,
  deps: HandlerDeps,
  upstream: UpstreamCall,
) {
  const endpoint = route(req.method, record.path);
  switch (endpoint.kind) {
    case 'health':
      return sendJson(res, 200, { status: 'ok' }, {}, record);
    case 'root':
      return sendJson(res, 200, {
        name: 'model-gateway',
        version: deps.version,
        endpoints: ['/v1/responses', '/v1/chat/completions', '/v1/messages', '/v1/messages/count_tokens', '/v1/models'],
      }, {}, record);
    case 'models': {
      const anthropic = req.headers['anthropic-version'] !== undefined;
      record.protocol = anthropic ? 'messages' : 'chat';
      const { group } = identify(state.config, req, record, 'anthropic');
      return sendJson(res, 200, modelsBody(state.config, group, anthropic ? 'anthropic' : 'openai', endpoint.id, deps.startedAt), {}, record);
    }
    case 'create':
    case 'count_tokens':
      return proxy(req, res, record, state, endpoint, upstream);
  }
}

function identify(config: Config, req: IncomingMessage, record: RequestRecord, style: 'anthropic' | 'bearer') {
  const key: GatewayKey = authenticate(config, req.headers, style);
  record.keyGroup = key.group;
  record.keyId = key.id;
  if (key.name) record.keyName = key.name;
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
) {
  const { config } = state;
  const protocol = endpoint.protocol;
  const operation = endpoint.kind;
  record.protocol = protocol;

  const { group } = identify(config, req, record, protocol === 'messages' ? 'anthropic' : 'bearer');
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

  const raw = await readBody(req, config.server.maxBodyBytes);
  const exchange = record.exchange;
  if (exchange) capture(exchange, exchange.request, performance.now() - record.start, raw);
  const json = parseJsonBody(raw);
  const info = protocolSpecs[protocol].inspect(json, operation);
  const body = json as Record<string, unknown>;
  record.model = info.model;
  record.stream = info.stream;

  const target = resolveModel(config, info.model);
  record.provider = target.provider.id;
  record.upstreamModel = target.upstreamModel;
  const plan = planUpstream(protocol, target.provider);
  record.upstreamProtocol = plan.upstreamProtocol;
  // Claude Code and Codex always ask for reasoning; translated to a model without it, the request goes without.
  const dropReasoning = plan.translator !== undefined && !target.model.features.has('reasoning');
  authorize(group, target.model, info.model, protocol, operation === 'create' ? info.features : [], dropReasoning ? REASONING : NONE);
  const provider = state.providers.get(target.provider.id);
  if (!provider) throw new GatewayError('internal', `Provider '${target.provider.id}' is not running.`);

  const controller = new AbortController();
  call.controller = controller;
  const send = (upstreamBody: Buffer, upstreamJson: Record<string, unknown>) => {
    const headers = upstreamHeaders(req.headers, plan.upstreamProtocol);
    if (exchange) {
      const attempt: UpstreamAttempt = {
        model: info.model,
        provider: target.provider.id,
        upstreamModel: target.upstreamModel,
        protocol: plan.upstreamProtocol,
        t: performance.now() - record.start,
        headers,
        body: emptyBody(),
        response: emptyBody(),
      };
      capture(exchange, attempt.body, attempt.t, upstreamBody);
      exchange.attempts.push(attempt);
    }
    return provider.send({
      protocol: plan.upstreamProtocol,
      operation,
      headers,
      body: upstreamBody,
      json: upstreamJson,
      signal: controller.signal,
    });
  };
  const relayContext = { res, protocol, provider, record, signal: controller.signal };

  if (!plan.translator) {
    const upstream = await send(renameModel(raw, body, target.upstreamModel), body);
    return relay(upstream, relayContext);
  }

  // Translated. Counting tokens needs no upstream: providers that do not speak Messages cannot count.
  if (operation === 'count_tokens') {
    return sendJson(res, 200, { input_tokens: estimateInputTokens(body) }, { 'x-model-gateway-token-estimate': 'true' }, record);
  }
  if (protocol === 'responses' && body.previous_response_id != null) {
    throw invalidRequest(
      `previous_response_id needs the conversation stored server-side, and model '${info.model}' is served through ` +
        `${plan.upstreamProtocol === 'chat' ? 'Chat Completions' : 'the Messages API'}, which keeps none. ` +
        'Send the whole conversation in `input` (with store: false), as Codex does.',
      'previous_response_id',
    );
  }
  const ctx = translateContext(protocol, plan.upstreamProtocol, info.model, target, dropReasoning);
  const upstreamJson = plan.translator.request(body, ctx);
  record.warnings = ctx.warnings;
  const gatewayHeaders: Record<string, string> = { 'x-model-gateway-translated': `${protocol}->${plan.upstreamProtocol}` };
  if (ctx.warnings.length > 0) {
    // Header values must be visible ASCII; the phrases are meant to be, this keeps a stray character from failing the request.
    gatewayHeaders['x-model-gateway-dropped'] = [...new Set(ctx.warnings)].join(', ').replace(/[^\x20-\x7e]/g, '?');
  }
  const upstream = await send(Buffer.from(JSON.stringify(upstreamJson)), upstreamJson);
  await relay(upstream, {
    ...relayContext,
    translation: { translator: plan.translator, ctx, callerBody: body, stream: info.stream, headers: gatewayHeaders },
  });
}

function translateContext(
  caller: Protocol,
  upstream: Protocol,
  requestedModel: string,
  target: Target,
  dropReasoning: boolean,
): TranslateContext {
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

function sendError(res: ServerResponse, err: unknown, protocol: Protocol, record: RequestRecord, logger: Logger): void {
  if (res.destroyed || res.writableEnded) return;
  const gatewayError =
    err instanceof GatewayError ? err : new GatewayError('internal', 'The gateway failed to handle this request.', { cause: err });
  record.error = gatewayError.message;
  if (!(err instanceof GatewayError)) {
    logger.info(`internal error in ${record.id}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
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
  captureResponse(record, rendered.status, headers, rendered.body);
  res.writeHead(rendered.status, headers);
  res.end(rendered.body);
}
