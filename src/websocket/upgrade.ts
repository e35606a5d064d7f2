/**
 * The WebSocket transport of the Responses API: the server's 'upgrade' requests. Only
 * `/v1/responses` is upgraded, and only after the checks a POST there gets (the Host and Origin
 * guard, the key, the key group's protocols); a refusal is an HTTP answer in the caller's error
 * shape. An accepted connection counts against `server.maxConnections` for as long as it is open
 * (it is never idle in the HTTP sense, so never shed for a new one), and the gateway's close
 * ends it.
 */
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { authenticateThrottled } from '../auth/throttle.js';
import type { Config } from '../config/types.js';
import { authenticationFailed, GatewayError, notFound, permissionDenied } from '../errors.js';
import type { HandlerDeps } from '../pipeline/context.js';
import { endpointOf, pathOf } from '../pipeline/endpoints.js';
import { renderError } from '../protocols/errors.js';
import { likelyProtocol, protocols } from '../protocols/registry.js';
import type { Connections } from '../server/connections.js';
import { checkHostAndOrigin } from '../server/host-guard.js';
import { serveConnection } from './session.js';

/** How long a connection may stay silent between responses before the gateway closes it. */
export const DEFAULT_IDLE_MS = 10 * 60_000;
/** OpenAI's Responses WebSocket connections last an hour at most; clients reconnect after it, so the gateway's may end there too. */
export const DEFAULT_LIFETIME_MS = 60 * 60_000;
/**
 * Room for a message's envelope (`type`) above `server.maxBodyBytes`: a message up to the cap plus
 * this is read and refused by the pipeline's own cap with an `error` message; past it the library
 * closes the connection (1009) without reading the rest.
 */
const ENVELOPE_BYTES = 64 * 1024;

export interface WebSocketOptions {
  readonly deps: HandlerDeps;
  /** The config new connections and messages are served with. */
  readonly config: () => Config;
  readonly dispatch: (req: IncomingMessage, res: ServerResponse) => void;
  readonly connections: Connections;
  readonly idleMs?: number;
  readonly maxLifetimeMs?: number;
}

export interface WebSockets {
  /** Closes every open connection (the gateway is closing): their running responses are cancelled. */
  closeAll(): void;
}

/**
 * The WebSocket library, loaded by the first upgrade a gateway accepts: a gateway no client reaches over a
 * WebSocket does not hold it (docs/performance.md, "Memory at start").
 */
let library: Promise<typeof WebSocketServer> | undefined;
const loadLibrary = () => (library ??= import('ws').then((ws) => ws.WebSocketServer));

export function acceptWebSockets(server: Server, options: WebSocketOptions): WebSockets {
  let wss: WebSocketServer | undefined;
  let closing = false;
  const open = new Set<WebSocket>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const config = options.config();
    try {
      admitUpgrade(req, config, options.deps);
    } catch (err) {
      refuse(req, socket, err);
      return;
    }
    const tcp = req.socket;
    // Busy from now on: the first-request timer stops and the connection is never shed as idle.
    options.connections.requestStarted(tcp);
    if (wss !== undefined) {
      accept(wss, req, socket, head, config);
      return;
    }
    // Node's server leaves an upgraded socket without an error listener: one is needed until the library takes it.
    const onError = () => socket.destroy();
    socket.on('error', onError);
    loadLibrary().then(
      (Library) => {
        socket.off('error', onError);
        wss ??= new Library({ noServer: true, perMessageDeflate: false, clientTracking: false });
        // A caller gone meanwhile: its connection's close has dropped it already. The gateway closing: no new one.
        if (closing) socket.destroy();
        else if (!socket.destroyed) accept(wss, req, socket, head, config);
      },
      (err: unknown) => {
        socket.off('error', onError);
        options.connections.requestEnded(tcp);
        refuse(req, socket, err);
      },
    );
  });

  function accept(library: WebSocketServer, req: IncomingMessage, socket: Duplex, head: Buffer, config: Config): void {
    const tcp = req.socket;
    // Read per upgrade, so a reloaded cap applies to the connections made after it.
    library.options.maxPayload = config.server.maxBodyBytes + ENVELOPE_BYTES;
    library.handleUpgrade(req, socket, head, (ws) => {
      open.add(ws);
      ws.once('close', () => {
        open.delete(ws);
        options.connections.requestEnded(tcp);
      });
      serveConnection({
        socket: ws,
        upgrade: req,
        dispatch: options.dispatch,
        maxBodyBytes: () => options.config().server.maxBodyBytes,
        idleMs: options.idleMs ?? DEFAULT_IDLE_MS,
        maxLifetimeMs: options.maxLifetimeMs ?? DEFAULT_LIFETIME_MS,
      });
    });
  }

  return {
    closeAll() {
      closing = true;
      for (const ws of open) ws.close(1001, 'the gateway is closing');
      // A client that does not answer the close handshake is cut.
      setTimeout(() => {
        for (const ws of open) ws.terminate();
      }, 1000).unref();
    },
  };
}

/** Throws the refusal for an upgrade a POST to the same path would not get past. */
function admitUpgrade(req: IncomingMessage, config: Config, deps: HandlerDeps): void {
  checkHostAndOrigin(req, deps.listening.loopback, config.server.allowedHosts);
  if (req.headers.upgrade?.toLowerCase() !== 'websocket') {
    // 426: the caller goes on over plain HTTP (Codex falls back on it).
    throw new GatewayError('invalid_request', 'Only WebSocket upgrades are accepted here (Upgrade: websocket); send other requests without Upgrade.', { status: 426 });
  }
  const path = pathOf(req.url);
  if (!servesResponses(path)) {
    throw notFound(`WebSocket connections are accepted on /v1/responses only, not on ${path}.`);
  }
  const key = authenticateThrottled(deps.authFailures, config, req, protocols.responses.keyStyle);
  const group = config.keyGroups.get(key.group);
  if (!group) throw authenticationFailed('Invalid API key.');
  if (!group.protocols.has('responses')) throw permissionDenied(`Key group '${group.name}' may not use the Responses API.`);
}

/** Whether a POST to `path` creates a Responses response (the only endpoint with a WebSocket transport). */
function servesResponses(path: string): boolean {
  try {
    const endpoint = endpointOf('POST', path);
    return endpoint.kind === 'call' && endpoint.protocol === 'responses' && endpoint.operation === 'create';
  } catch {
    // An unknown path, or one that takes no POST.
    return false;
  }
}

/** An HTTP answer on the raw socket, in the error shape of the caller's protocol, then the socket closes. */
function refuse(req: IncomingMessage, socket: Duplex, err: unknown): void {
  const error = err instanceof GatewayError ? err : new GatewayError('internal', 'The gateway failed to handle this upgrade.', { cause: err });
  const caller = likelyProtocol(pathOf(req.url), (name) => req.headers[name] !== undefined);
  const rendered = renderError(error, protocols[caller].errorFamily, { requestId: `req_${randomBytes(9).toString('hex')}` });
  const headers = { ...rendered.headers, 'content-length': String(Buffer.byteLength(rendered.body)), connection: 'close' };
  let head = `HTTP/1.1 ${rendered.status} ${STATUS_CODES[rendered.status] ?? ''}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  socket.end(`${head}\r\n${rendered.body}`);
  setTimeout(() => socket.destroy(), 2000).unref();
}
