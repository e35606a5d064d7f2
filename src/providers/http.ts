/**
 * The provider for everything reached over HTTP: one undici keep-alive Pool per
 * provider (a provider has one origin), with the provider's timeouts. Calling the
 * pool with a precomputed path skips what `undici.request(url)` does per call
 * (URL parsing, the Agent's pool lookup), a large share of a small request's CPU
 * (docs/performance.md, "Upstream client"). Answers come through `dispatch` and a handler of
 * our own: read whole, without a Readable, for a request that asked for no stream
 * (whole-answer.ts), and into a Readable as they arrive for one that did (streamed-answer.ts).
 */
import type { Dispatcher } from 'undici';
import type { ProviderConfig } from '../config/types.js';
import { GatewayError, invalidRequest } from '../errors.js';
import type { Operation, Provider, UpstreamRequest, UpstreamResponse } from './types.js';
import { CallAbort, type AbortState } from './abort.js';
import { Pool } from './undici-lean.js';
import { type BodyFor, type FedBody, StreamAnswerHandler, type UpstreamControl } from './streamed-answer.js';
import { WholeAnswerHandler } from './whole-answer.js';
import { AnswerTooLarge, UnreadableEncoding } from './decode-answer.js';
import { DEFAULT_SERVER_LIMITS } from '../config/defaults.js';
import { scrubCredential } from './scrub-credential.js';
import { upstreamHttpError } from './upstream-error.js';
import type { Protocol } from '../protocols/types.js';

export interface HttpProviderDeps {
  /** Replaces the provider's own Agent (tests inject failures this way). */
  readonly dispatcher?: Dispatcher;
}

/** What a call's URL may depend on. */
export interface UrlCall {
  readonly protocol: Protocol;
  readonly operation: Operation;
  /** The model named upstream (the body's `model`), for a kind that puts it in the path. */
  readonly model: string | undefined;
  readonly stream: boolean;
}

/** The final request, for headers computed over it (a signature). */
export interface SignedCall {
  readonly method: 'POST';
  readonly url: URL;
  /** Every header already set, as undici's flat list of names and values. */
  readonly headers: readonly string[];
  readonly body: Buffer;
}

/** What one kind of HTTP provider does its own way; the rest (pool, answers, abort) is this file's. */
export interface HttpHooks {
  /** The URL of a call, built with the URL API (see url.ts). */
  url(config: ProviderConfig, call: UrlCall): URL;
  /**
   * Whether the URL depends on the model or the stream flag. When not, it is worked out once per
   * protocol and operation, and `url` sees no model.
   */
  readonly urlPerCall?: boolean;
  /** The provider credential as the kind's headers. */
  credential(apiKey: string): Record<string, string>;
  /**
   * Headers computed per call over the final URL and body (a request signature, a short-lived
   * token); they replace any of the same name. A promise when they wait for a credential; a
   * rejection fails the call as `transportError` maps it.
   */
  sign?(call: SignedCall): Record<string, string> | Promise<Record<string, string>>;
  /**
   * The answer as the gateway reads it, for an upstream whose answers are framed its own way
   * (AWS event-stream, a count in other field names). Rejecting fails the call as `transportError` maps it.
   */
  answer?(answer: UpstreamResponse, call: UrlCall): UpstreamResponse | Promise<UpstreamResponse>;
  /**
   * A streamed answer's body, for an upstream that frames its stream its own way: fed each chunk as
   * undici reads it, with no stream before it, and handed to `answer`. Undefined keeps the bytes as they came.
   */
  streamBody?(call: UrlCall, status: number, headers: Record<string, string | string[] | undefined>, upstream: UpstreamControl): FedBody | undefined;
  /** An HTTP error answer (status >= 400) as the error the caller sees; default: upstream-error.ts. */
  toError?(config: ProviderConfig, status: number, headers: Readonly<Record<string, string | string[] | undefined>>, bodyText: string): GatewayError;
  /** A failure before or while reading the answer, as the error the caller sees; default: `transportError` below. */
  transportError?(err: unknown, config: ProviderConfig, signal?: AbortState): unknown;
}

export function createHttpProvider(config: ProviderConfig, hooks: HttpHooks, deps: HttpProviderDeps = {}): Provider {
  const base = new URL(config.baseUrl);
  const ownPool = deps.dispatcher
    ? undefined
    : new Pool(base.origin, {
        connect: { timeout: config.timeouts.connectMs },
        headersTimeout: config.timeouts.headersMs,
        bodyTimeout: config.timeouts.idleMs,
        keepAliveTimeout: 30_000,
      });
  const dispatcher = deps.dispatcher ?? ownPool!;
  // The config's headers, then the credential, as undici's flat list of names and values; each
  // replaces a header of the same name (in any case) from before it. A list skips a second
  // object's spread and undici's Object.keys per request.
  const fixed = new Map<string, string>();
  const credential = config.apiKey === undefined || config.apiKey === '' ? {} : hooks.credential(config.apiKey);
  // Uncompressed answers are asked for: the gateway reads them (usage, translation, its own error events),
  // and decoding costs CPU. An upstream that compresses anyway is decoded (decode-answer.ts).
  for (const [name, value] of Object.entries({ 'accept-encoding': 'identity', ...config.headers, ...credential })) {
    fixed.set(name.toLowerCase(), value);
  }
  const fixedList = [...fixed].flat();
  // A URL that depends only on the protocol and operation is worked out once for each, with the origin and path
  // undici is given: the URL's getters make new strings on every call (docs/performance.md, "A small request's allocations").
  const targets = new Map<string, Map<string, Target>>();
  const targetFor = (req: UpstreamRequest): Target => {
    if (hooks.urlPerCall) {
      try {
        return targetOf(hooks.url(config, urlCall(req)));
      } catch (err) {
        throw invalidRequest(`The model name cannot be sent to provider '${config.id}': ${err instanceof Error ? err.message : String(err)}.`);
      }
    }
    let byOperation = targets.get(req.protocol);
    if (byOperation === undefined) {
      byOperation = new Map();
      targets.set(req.protocol, byOperation);
    }
    let target = byOperation.get(req.operation);
    if (target === undefined) {
      target = targetOf(hooks.url(config, { protocol: req.protocol, operation: req.operation, model: undefined, stream: req.stream !== false }));
      byOperation.set(req.operation, target);
    }
    return target;
  };
  const mapTransport = hooks.transportError ?? transportError;
  const mapError = (err: unknown, signal: AbortState) => mapTransport(err, config, signal);

  return {
    id: config.id,
    config,
    send(req: UpstreamRequest): Promise<UpstreamResponse> {
      const headers: string[] = [];
      // The client's names arrive lower-cased (upstreamHeaders), as `fixed` holds its own.
      for (const name in req.headers) if (!fixed.has(name)) headers.push(name, req.headers[name]!);
      for (let i = 0; i < fixedList.length; i++) headers.push(fixedList[i]!);
      let target: Target;
      try {
        target = targetFor(req);
      } catch (err) {
        return Promise.reject(err);
      }
      const { url } = target;
      const options = { origin: target.origin, path: target.path, method: 'POST' as const, headers, body: req.body };
      // No stream asked for: the answer is read whole (whole-answer.ts); else handed on as it arrives (streamed-answer.ts).
      const limit = req.maxResponseBytes ?? DEFAULT_SERVER_LIMITS.maxResponseBytes;
      const abort = callAbort(req);
      const hooked = hooks.sign || hooks.answer || hooks.streamBody ? urlCall(req) : undefined;
      const bodyFor = hooked && hooks.streamBody ? streamBodyFor(hooks.streamBody, hooked) : undefined;
      const answer: AnswerSpec = { req, limit, bodyFor };
      if (!hooked) return dispatchCall(dispatcher, options, abort, mapError, answer);
      const call = () => dispatchCall(dispatcher, options, abort, mapError, answer);
      return sendHooked(hooks, { method: 'POST', url, headers, body: req.body }, hooked, call, (err) => mapError(err, abort));
    },
    toError(status, headers, bodyText) {
      return (hooks.toError ?? upstreamHttpError)(config, status, headers, scrubCredential(bodyText, config));
    },
    transportError: mapError,
    async close() {
      await ownPool?.close();
    },
  };
}

/** A call's URL, and the origin and path undici is given for it. */
interface Target {
  readonly url: URL;
  readonly origin: string;
  readonly path: string;
}
const targetOf = (url: URL): Target => ({ url, origin: url.origin, path: url.pathname + url.search });

/** What `url` is given for a request. */
function urlCall(req: UpstreamRequest): UrlCall {
  const model = typeof req.model === 'string' ? req.model : typeof req.json.model === 'string' ? req.json.model : undefined;
  return { protocol: req.protocol, operation: req.operation, model, stream: req.stream !== false };
}

/** The kind's `streamBody` for one call. */
function streamBodyFor(streamBody: NonNullable<HttpHooks['streamBody']>, call: UrlCall): BodyFor {
  return (status, headers, upstream) => streamBody(call, status, headers, upstream);
}

/** A call through the kind's `sign` and `answer` hooks; their failures are mapped as the call's own. */
async function sendHooked(
  hooks: HttpHooks,
  signed: SignedCall,
  call: UrlCall,
  dispatch: () => Promise<UpstreamResponse>,
  mapError: (err: unknown) => unknown,
): Promise<UpstreamResponse> {
  if (hooks.sign) {
    let computed: Record<string, string>;
    try {
      computed = await hooks.sign(signed);
    } catch (err) {
      throw mapError(err);
    }
    signHeaders(signed.headers as string[], computed);
  }
  const answer = await dispatch();
  if (!hooks.answer) return answer;
  try {
    return await hooks.answer(answer, call);
  } catch (err) {
    answer.body.destroy();
    throw mapError(err);
  }
}

/** Sets each signed header in the flat list, replacing one of the same name. */
function signHeaders(headers: string[], signed: Record<string, string>): void {
  for (const [name, value] of Object.entries(signed)) {
    const lower = name.toLowerCase();
    for (let i = headers.length - 2; i >= 0; i -= 2) if (headers[i]!.toLowerCase() === lower) headers.splice(i, 2);
    headers.push(lower, value);
  }
}

/**
 * How a call's answer is read: whole (no stream asked for: whole-answer.ts) or handed on as it arrives
 * (streamed-answer.ts). Data rather than a function that makes the handler: an unhooked call, nearly
 * every one, then makes no closure for it (docs/performance.md, "A small request's allocations").
 */
interface AnswerSpec {
  readonly req: UpstreamRequest;
  readonly limit: number;
  readonly bodyFor: BodyFor | undefined;
}

/** Dispatches the call to a new handler; a failure before the answer's headers rejects, mapped by transportError. */
function dispatchCall(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: CallAbort,
  mapError: (err: unknown, signal: AbortState) => unknown,
  answer: AnswerSpec,
): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(mapError(signal.reason, signal));
      return;
    }
    const settle = (err: Error | undefined, got: UpstreamResponse | undefined) => (err ? reject(mapError(err, signal)) : resolve(got!));
    const { req } = answer;
    dispatcher.dispatch(
      options,
      req.stream === false ? new WholeAnswerHandler(signal, settle, answer.limit, req) : new StreamAnswerHandler(signal, settle, answer.bodyFor),
    );
  });
}

/** The cheap CallAbort, or one that follows the request's AbortSignal (a caller that gave only that). */
function callAbort(req: UpstreamRequest): CallAbort {
  if (req.abort) return req.abort;
  const abort = new CallAbort();
  const { signal } = req;
  if (signal.aborted) abort.abort(signal.reason);
  else signal.addEventListener('abort', () => abort.abort(signal.reason), { once: true });
  return abort;
}

/** Maps undici's failures to what the caller should see; the cause stays for the log. */
export function transportError(err: unknown, config: ProviderConfig, signal?: AbortState): unknown {
  // The gateway's own cap on the call's total time aborts with the error to show; a client abort with nothing.
  if (signal?.aborted) return signal.reason instanceof GatewayError ? signal.reason : err;
  if (err instanceof GatewayError) return err;
  if (err instanceof AnswerTooLarge) {
    return new GatewayError(
      'upstream_error',
      `Provider '${config.id}' sent an answer larger than the gateway's limit of ${err.limit} bytes (server.maxResponseBytes).`,
      { cause: err },
    );
  }
  if (err instanceof UnreadableEncoding) {
    return new GatewayError(
      'upstream_error',
      err.known
        ? `Provider '${config.id}' sent a ${err.encoding}-compressed answer that does not decode.`
        : `Provider '${config.id}' answered with content-encoding '${err.encoding}', which the gateway cannot decode.`,
      { cause: err },
    );
  }
  const origin = safeOrigin(config.baseUrl);
  // undici's error codes are its stable surface; its error classes are not the same objects in every copy of undici.
  const code = errorCode(err);
  switch (code) {
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new GatewayError('timeout', `Provider '${config.id}' did not answer within ${config.timeouts.headersMs / 1000}s.`, { cause: err });
    case 'UND_ERR_BODY_TIMEOUT':
      return new GatewayError('timeout', `Provider '${config.id}' went silent for ${config.timeouts.idleMs / 1000}s.`, { cause: err });
    default:
      return new GatewayError(
        'upstream_unavailable',
        `Provider '${config.id}' is unreachable at ${origin}${code ? ` (${code})` : ''}.`,
        { cause: err },
      );
  }
}

function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
