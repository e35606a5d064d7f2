/**
 * The gateway as an object: a node:http server, the state it serves with, and
 * a graceful close. `serve` (CLI) and the tests both start it through here.
 *
 * The state can be replaced while serving (`reload`): each request is served
 * start to finish by the state that was current when it arrived, and a replaced
 * state's providers are closed once its last request has finished.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/types.js';
import type { Logger } from '../log/logger.js';
import { printable } from '../log/terminal-text.js';
import { createProviders, type ProviderDeps } from '../providers/registry.js';
import type { BudgetStore } from '../budgets/budget-store.js';
import { allLines, type BudgetLine } from '../budgets/plan.js';
import { addedLines, restoreSpend } from '../budgets/restore.js';
import { createLedger, type UsageLedger } from '../ledger/writer.js';
import type { LimitStore } from '../limits/limit-store.js';
import { createMemoryResponsesStore } from '../responses-store/memory-store.js';
import type { ResponsesStore } from '../responses-store/store.js';
import { type MetricsHooks, noMetrics } from '../metrics/hooks.js';
import type { Tracer } from '../tracing/types.js';
import { reasoningSeal } from '../translate/common/reasoning-seal.js';
import { answerClientError } from './client-error.js';
import { sharedState } from './shared-state.js';
import { defaultMaxConnections, trackConnections } from './connections.js';
import { createHandler } from '../pipeline/handle.js';
import { acceptWebSockets } from '../websocket/upgrade.js';
import { type GatewayState, type HandlerDeps, type Mount, newServerLoad, type RequestObserver } from '../pipeline/context.js';
import { isLoopback } from './host-guard.js';

export interface GatewayOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly version?: string;
  readonly providerDeps?: ProviderDeps;
  /**
   * Bytes of bodies captured per exchange for whoever looks at them (the inspector, the log
   * file, --verbose), always. Default: 1 MiB when the logger wants whole exchanges, or while
   * `captureWhile` says someone is watching; else nothing.
   */
  readonly captureLimit?: number;
  /** Asked as each request starts: capture its exchange? (The inspector: while a page is open.) */
  readonly captureWhile?: () => boolean;
  readonly observers?: readonly RequestObserver[];
  /** What other parts report to the metrics, when they are on (the metrics' own observer is among `observers`). */
  readonly metrics?: MetricsHooks;
  /** Traces each request, when tracing is on (src/tracing); its spans end as the request's observers are told. */
  readonly tracer?: Tracer;
  /** Pages served on the same port, such as the inspector. */
  readonly mounts?: readonly Mount[];
  /** Where key-group limits are kept (the caller closes it); default: Redis when the config has `state.redis`, else this process's memory. */
  readonly limitStore?: LimitStore;
  /**
   * The key of the gateway's reasoning seals (`serve`: the install secret, so that seals outlive a
   * restart). Default: a random key for this gateway.
   */
  readonly sealKey?: Buffer;
  /** Where translated Responses answers are kept for later references; default: this process's memory. */
  readonly responsesStore?: ResponsesStore;
  /** Where spend against budgets is kept; default: Redis with `state.redis`, else this process's memory. */
  readonly budgetStore?: BudgetStore;
  /**
   * The usage ledger's folder (`serve`: `<dataDir>/usage`): finished model requests are appended to
   * it unless `server.ledger` is false, and budgets' spend is restored from it before listening.
   * Default: no ledger.
   */
  readonly ledgerDir?: string;
  /** How long a WebSocket connection may stay silent between responses; default: websocket/upgrade.ts. */
  readonly webSocketIdleMs?: number;
  /** How long a WebSocket connection may stay open, closed between responses once past it; default: websocket/upgrade.ts. */
  readonly webSocketMaxLifetimeMs?: number;
}

export const DEFAULT_CAPTURE_LIMIT = 1024 * 1024;

/** Ends each request's spans once its record is complete, after the log and the other observers have read it. */
const endTraces: RequestObserver = {
  requestEnded(record) {
    record.trace?.end(record);
  },
};

/** What `reload` hands back about the state it replaced. */
export interface Replaced {
  /** The state that was serving until now. */
  readonly previous: GatewayState;
  /** Its requests still running when it was replaced; they finish on it. */
  readonly inFlight: number;
  /** Resolves once those requests have finished and its providers are closed (never rejects). */
  readonly retired: Promise<void>;
  /** Resolves once the budgets the reload added hold their period's spend from the ledger (never rejects). */
  readonly restored: Promise<void>;
}

export interface Gateway {
  readonly server: Server;
  /** Listens on the config's host and port unless given others; resolves with the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting, lets in-flight requests finish for up to `graceMs`, then cuts the rest. */
  close(graceMs?: number): Promise<void>;
  /** The state new requests are served with. */
  readonly state: GatewayState;
  /**
   * Serves new requests with `config` (and new providers built from it) from now on. Does not
   * move the listening socket: `config.server.host`/`port` take effect only through `listen`.
   */
  reload(config: Config): Replaced;
}

/** A state with the requests it is serving, so its providers are closed only when none remain. */
interface Generation {
  readonly state: GatewayState;
  readonly handle: (req: IncomingMessage, res: ServerResponse, closed: () => void) => void;
  inFlight: number;
  replaced: boolean;
  closing: Promise<void> | undefined;
  readonly retired: Promise<void>;
  readonly markRetired: () => void;
}

function capturePolicy(options: GatewayOptions): () => number {
  const fixed = options.captureLimit ?? (options.logger.capturesExchanges ? DEFAULT_CAPTURE_LIMIT : 0);
  const watching = options.captureWhile;
  if (fixed > 0 || !watching) return () => fixed;
  return () => (watching() ? DEFAULT_CAPTURE_LIMIT : 0);
}

/** The ledger in `dir`; none (said once) when its folder cannot be made: the gateway serves without it. */
function openLedger(dir: string, logger: Logger): UsageLedger | undefined {
  try {
    return createLedger(dir, (m) => logger.info(m));
  } catch (err) {
    logger.info(printable(`cannot keep the usage ledger in ${dir} (${err instanceof Error ? err.message : String(err)}): serving without it`));
    return undefined;
  }
}

export function createGateway(options: GatewayOptions): Gateway {
  // Read at start: a reload that changes `state` is applied by a restart (cli/watch-config.ts says so).
  const shared = sharedState(options.config, options.logger, { limits: options.limitStore, budgets: options.budgetStore }, options.metrics);
  const budgets = shared.budgets;
  const ledgerDir = options.config.server.ledger === false ? undefined : options.ledgerDir;
  const ledger = ledgerDir === undefined ? undefined : openLedger(ledgerDir, options.logger);
  const restore = (config: Config, lines: readonly BudgetLine[]): Promise<void> | undefined => {
    if (ledgerDir === undefined || lines.length === 0) return undefined;
    return restoreSpend(ledgerDir, config, lines, budgets).then(
      (read) => {
        if (read?.skipped) options.logger.info(`usage ledger: ${read.skipped} lines were not entries and were skipped`);
      },
      (err: unknown) =>
        options.logger.info(printable(`cannot read the usage ledger in ${ledgerDir}: ${err instanceof Error ? err.message : String(err)}; budgets count from now`)),
    );
  };
  // Spend since each budget's period started, before the first request is admitted (listen waits for it).
  const restored = restore(options.config, allLines(options.config));
  const deps: HandlerDeps = {
    logger: options.logger,
    version: options.version ?? '0.0.0',
    startedAt: Date.now(),
    captureLimit: capturePolicy(options),
    observers: [...(options.observers ?? []), ...(ledger ? [ledger.observer] : []), ...(options.tracer ? [endTraces] : [])],
    mounts: options.mounts ?? [],
    limits: shared.limits,
    load: newServerLoad(),
    authFailures: shared.authFailures,
    listening: { loopback: false },
    seal: reasoningSeal(options.sealKey ?? randomBytes(32)),
    responses: options.responsesStore ?? createMemoryResponsesStore(),
    budgets,
    ...(shared.joint ? { joint: shared.joint } : {}),
    metrics: options.metrics ?? noMetrics,
    ...(options.tracer ? { tracer: options.tracer } : {}),
  };

  const generation = (config: Config): Generation => {
    const providerDeps = shared.cooldowns ? { ...options.providerDeps, cooldowns: shared.cooldowns } : options.providerDeps;
    const state: GatewayState = { config, providers: createProviders(config, providerDeps) };
    let markRetired = () => {};
    const retired = new Promise<void>((resolve) => (markRetired = resolve));
    return { state, handle: createHandler(() => state, deps), inFlight: 0, replaced: false, closing: undefined, retired, markRetired };
  };
  const closeProviders = (gen: Generation): Promise<void> => {
    // A provider that fails to close must not keep the others open or the caller waiting.
    gen.closing ??= Promise.allSettled([...gen.state.providers.values()].map((p) => p.close())).then(gen.markRetired);
    return gen.closing;
  };

  let current = generation(options.config);
  /** Replaced generations whose requests have not all finished yet. */
  const draining = new Set<Generation>();

  let inFlight = 0;
  let idle: (() => void) | undefined;
  // Node checks the two client timeouts on this interval (default 30 s, which would let a stuck client linger).
  // A missing Host is refused by the handler, in the caller's error shape rather than Node's bare 400.
  /** Serves one request: a POST, or a message of a WebSocket connection standing for one (websocket/wire.ts). */
  const dispatch = (req: IncomingMessage, res: ServerResponse) => {
    // The generation is fixed here, so a reload mid-request cannot change what serves it.
    const gen = current;
    const socket = req.socket;
    connections.requestStarted(socket);
    inFlight++;
    gen.inFlight++;
    gen.handle(req, res, () => {
      connections.requestEnded(socket);
      gen.inFlight--;
      if (gen.replaced && gen.inFlight === 0) {
        draining.delete(gen);
        void closeProviders(gen);
      }
      inFlight--;
      if (inFlight === 0) idle?.();
    });
  };
  const server = createServer({ connectionsCheckingInterval: 1000, requireHostHeader: false }, dispatch);
  // Connections that say nothing, and how many may be open (see connections.ts).
  const maxConnections = defaultMaxConnections();
  const connectionSettings = (config: Config) => ({
    headersTimeoutMs: config.server.headersTimeoutMs,
    maxConnections: config.server.maxConnections ?? maxConnections,
  });
  const connections = trackConnections(server, connectionSettings(options.config));
  // Slow or stuck clients: headersTimeout and requestTimeout bound how long a client may take to
  // send its request (not how long the answer takes: LLM calls run for minutes).
  const applyServerTimeouts = (config: Config) => {
    server.headersTimeout = config.server.headersTimeoutMs;
    server.requestTimeout = Math.max(config.server.requestTimeoutMs, config.server.headersTimeoutMs);
    server.keepAliveTimeout = config.server.keepAliveTimeoutMs;
    connections.apply(connectionSettings(config));
  };
  applyServerTimeouts(options.config);
  server.on('clientError', answerClientError);
  // However the server was made to listen: the Host check applies while the address is a loopback one.
  server.on('listening', () => {
    const address = server.address();
    deps.listening.loopback = typeof address === 'object' && address !== null && isLoopback(address.address);
  });
  // Without this listener Node answers `Expect: 100-continue` itself, before the request is routed and
  // its key checked; the handler sends `100 Continue` once it is ready to read the body.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
  // The Responses API's WebSocket transport, checked like a POST and served by `dispatch` message by message.
  const webSockets = acceptWebSockets(server, {
    deps,
    config: () => current.state.config,
    dispatch,
    connections,
    ...(options.webSocketIdleMs !== undefined ? { idleMs: options.webSocketIdleMs } : {}),
    ...(options.webSocketMaxLifetimeMs !== undefined ? { maxLifetimeMs: options.webSocketMaxLifetimeMs } : {}),
  });

  return {
    server,
    get state() {
      return current.state;
    },
    reload(config) {
      const next = generation(config);
      applyServerTimeouts(config);
      const previous = current;
      current = next;
      // Budgets the reload adds start from what the ledger holds of their period (once it holds every line so far).
      const added = addedLines(allLines(previous.state.config), allLines(config));
      const restored = ledger && added.length > 0 ? ledger.flush().then(() => restore(config, added)) : Promise.resolve();
      previous.replaced = true;
      if (previous.inFlight === 0) void closeProviders(previous);
      else draining.add(previous);
      return { previous: previous.state, inFlight: previous.inFlight, retired: previous.retired, restored };
    },
    async listen(port = options.config.server.port, host = options.config.server.host) {
      if (!isLoopback(host) && current.state.config.keyGroups.size === 0) {
        return Promise.reject(
          new Error(
            `Refusing to listen on ${host}: no key group is configured, so anyone who can reach this address could use your providers. ` +
              'Add a key group, or listen on 127.0.0.1.',
          ),
        );
      }
      await restored;
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shownHost}:${address.port}`);
        });
      });
    },
    async close(graceMs = 5000) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Upgraded connections are no longer the HTTP server's to close; their running responses end as a client's leaving does.
      webSockets.closeAll();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          idle = resolve;
          setTimeout(resolve, graceMs).unref();
        });
      }
      server.closeAllConnections();
      await closed;
      await Promise.all([current, ...draining].map(closeProviders));
      draining.clear();
      // Every request has ended: the ledger writes their lines before the process may go.
      await ledger?.close();
      // After the last request's end, so that its slot is given back rather than left to expire.
      await shared.close();
      await options.logger.close();
    },
  };
}
