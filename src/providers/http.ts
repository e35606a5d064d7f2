/**
 * The provider for everything reached over HTTP: one undici keep-alive Pool per
 * provider (a provider has one origin), with the provider's timeouts. Calling the
 * pool with a precomputed path skips what `undici.request(url)` does per call
 * (URL parsing, the Agent's pool lookup): about a fifth of the gateway's own CPU
 * per small request in the benchmark's profile. Answers come through `dispatch` and a handler of
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
  for (const [name, value] of Object.entries({ ...config.headers, ...credentialHeaders(config) })) fixed.set(name.toLowerCase(), value);
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
      const Handler = req.stream === false ? WholeAnswerHandler : StreamAnswerHandler;
      return dispatchCall(dispatcher, options, callAbort(req), config, Handler);
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
  Handler: typeof WholeAnswerHandler | typeof StreamAnswerHandler,
): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(transportError(signal.reason, config, signal));
      return;
    }
    dispatcher.dispatch(options, new Handler(signal, (err, answer) => (err ? reject(transportError(err, config, signal)) : resolve(answer!))));
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
