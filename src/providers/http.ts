/**
 * The provider for everything reached over HTTP: one undici keep-alive Pool per
 * provider (a provider has one origin), with the provider's timeouts. Calling the
 * pool with a precomputed path skips what `undici.request(url)` does per call
 * (URL parsing, the Agent's pool lookup), a large share of a small request's CPU
 * (docs/performance.md, "Upstream client"). Answers come through `dispatch` and a handler of
 * our own, without a Readable: read whole for a request that asked for no stream
 * (whole-answer.ts), handed on chunk by chunk for one that did (streamed-answer.ts).
 */
import type { Dispatcher } from 'undici';
import type { ProviderConfig } from '../config/types.js';
import { GatewayError } from '../errors.js';
import { credentialHeaders, endpointUrl } from './endpoints.js';
import type { Provider, UpstreamRequest, UpstreamResponse } from './types.js';
import { CallAbort, type AbortState } from './abort.js';
import { Pool, errors } from './undici-lean.js';
import { StreamAnswerHandler } from './streamed-answer.js';
import { WholeAnswerHandler } from './whole-answer.js';
import { AnswerTooLarge, UnreadableEncoding } from './decode-answer.js';
import { DEFAULT_SERVER_LIMITS } from '../config/schema.js';

export interface HttpProviderDeps {
  /** Replaces the provider's own Agent (tests inject failures this way). */
  readonly dispatcher?: Dispatcher;
}

export function createHttpProvider(config: ProviderConfig, deps: HttpProviderDeps = {}): Provider {
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
  // Uncompressed answers are asked for: the gateway reads them (usage, translation, its own error events),
  // and decoding costs CPU. An upstream that compresses anyway is decoded (decode-answer.ts).
  for (const [name, value] of Object.entries({ 'accept-encoding': 'identity', ...config.headers, ...credentialHeaders(config) })) {
    fixed.set(name.toLowerCase(), value);
  }
  const fixedList = [...fixed].flat();
  // The path of each endpoint, worked out once (the base URL may carry a path prefix such as /v1).
  const paths = new Map<string, string>();
  const pathFor = (protocol: UpstreamRequest['protocol'], operation: UpstreamRequest['operation']) => {
    const key = `${protocol}:${operation}`;
    let path = paths.get(key);
    if (path === undefined) {
      const url = new URL(endpointUrl(config, protocol, operation));
      path = url.pathname + url.search;
      paths.set(key, path);
    }
    return path;
  };

  return {
    id: config.id,
    config,
    send(req: UpstreamRequest): Promise<UpstreamResponse> {
      const headers: string[] = [];
      // The client's names arrive lower-cased (upstreamHeaders), as `fixed` holds its own.
      for (const name in req.headers) if (!fixed.has(name)) headers.push(name, req.headers[name]!);
      for (let i = 0; i < fixedList.length; i++) headers.push(fixedList[i]!);
      const options = { origin: base.origin, path: pathFor(req.protocol, req.operation), method: 'POST' as const, headers, body: req.body };
      // No stream asked for: the answer is read whole (whole-answer.ts); else handed on as it arrives (streamed-answer.ts).
      const limit = req.maxResponseBytes ?? DEFAULT_SERVER_LIMITS.maxResponseBytes;
      return dispatchCall(dispatcher, options, callAbort(req), config, (signal, settle) =>
        req.stream === false ? new WholeAnswerHandler(signal, settle, limit, req.holdAnswer?.bind(req)) : new StreamAnswerHandler(signal, settle),
      );
    },
    async close() {
      await ownPool?.close();
    },
  };
}

/** Dispatches the call to a new `Handler`; a failure before the answer's headers rejects, mapped by transportError. */
function dispatchCall(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: CallAbort,
  config: ProviderConfig,
  handler: (signal: CallAbort, settle: (err: Error | undefined, answer: UpstreamResponse | undefined) => void) => Dispatcher.DispatchHandler,
): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(transportError(signal.reason, config, signal));
      return;
    }
    dispatcher.dispatch(options, handler(signal, (err, answer) => (err ? reject(transportError(err, config, signal)) : resolve(answer!))));
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
  if (err instanceof errors.HeadersTimeoutError) {
    return new GatewayError(
      'timeout',
      `Provider '${config.id}' did not answer within ${config.timeouts.headersMs / 1000}s.`,
      { cause: err },
    );
  }
  if (err instanceof errors.BodyTimeoutError) {
    return new GatewayError('timeout', `Provider '${config.id}' went silent for ${config.timeouts.idleMs / 1000}s.`, {
      cause: err,
    });
  }
  const code = errorCode(err);
  return new GatewayError(
    'upstream_unavailable',
    `Provider '${config.id}' is unreachable at ${origin}${code ? ` (${code})` : ''}.`,
    { cause: err },
  );
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
