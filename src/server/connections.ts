/**
 * The client connections the server holds, and what bounds them: a connection must send its
 * first request within `headersTimeoutMs` of connecting, and at most `maxConnections` are open
 * at once. Past the cap the longest-idle connection is closed to make room; a new connection is
 * refused (closed at once) when none is idle.
 *
 * Node bounds a request only once its first byte has arrived, so without this a socket that
 * connects and says nothing holds a descriptor for ever; enough of them exhaust the process's
 * descriptors and lock every client out.
 *
 * Idle means nothing is being answered on the connection: one that has not sent a whole request
 * head yet, or a keep-alive connection between requests. A connection with a request in progress
 * (a long stream included) is never closed here.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionSettings {
  readonly headersTimeoutMs: number;
  readonly maxConnections: number;
}

interface Connection {
  /** Requests started and not yet answered in full. */
  busy: number;
  /** Closes a connection that has sent no request head yet; cleared by its first request. */
  firstRequest: NodeJS.Timeout | undefined;
}

export interface Connections {
  /** A request's head has arrived on `socket`: it is busy until `requestEnded`. */
  requestStarted(socket: Socket): void;
  /** The response to a request on `socket` has closed. */
  requestEnded(socket: Socket): void;
  /** Settings from a (re)loaded config; they apply to connections made from now on and to the cap at once. */
  apply(settings: ConnectionSettings): void;
}

export function trackConnections(server: Server, initial: ConnectionSettings): Connections {
  let settings = initial;
  const all = new Map<Socket, Connection>();
  /** The idle connections, longest idle first (a Set keeps insertion order). */
  const idle = new Set<Socket>();

  const drop = (socket: Socket) => {
    const conn = all.get(socket);
    if (!conn) return;
    clearTimeout(conn.firstRequest);
    all.delete(socket);
    idle.delete(socket);
  };
  const shed = (socket: Socket) => {
    drop(socket);
    socket.destroy();
  };

  server.on('connection', (socket: Socket) => {
    if (all.size >= settings.maxConnections) {
      const longestIdle = idle.values().next();
      if (longestIdle.done) {
        socket.destroy();
        return;
      }
      shed(longestIdle.value);
    }
    const conn: Connection = { busy: 0, firstRequest: undefined };
    conn.firstRequest = setTimeout(() => {
      if (socket.bytesRead === 0) return shed(socket);
      // Part of a request head came: answered as Node answers a head too slow to arrive (408), then closed.
      const late = Object.assign(new Error('The request head did not arrive in time.'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
      drop(socket);
      if (!server.emit('clientError', late, socket)) socket.destroy();
    }, settings.headersTimeoutMs);
    conn.firstRequest.unref();
    all.set(socket, conn);
    idle.add(socket);
    socket.once('close', () => drop(socket));
  });

  return {
    requestStarted(socket) {
      const conn = all.get(socket);
      if (!conn) return;
      if (conn.firstRequest) {
        clearTimeout(conn.firstRequest);
        conn.firstRequest = undefined;
      }
      conn.busy++;
      idle.delete(socket);
    },
    requestEnded(socket) {
      const conn = all.get(socket);
      if (!conn || --conn.busy > 0) return;
      // Back at the end of the line: idle from now. Node closes it after keepAliveTimeout.
      idle.add(socket);
    },
    apply(next) {
      settings = next;
      // A lowered cap takes effect now, as far as idle connections allow.
      for (const socket of idle) {
        if (all.size <= settings.maxConnections) break;
        shed(socket);
      }
    },
  };
}

/** Descriptors kept back for what is not a client or upstream connection: the listening socket, stdio, log files, DNS, modules. */
const RESERVED_DESCRIPTORS = 64;
/** Where the open-file limit cannot be read (not Linux). */
export const FALLBACK_MAX_CONNECTIONS = 1024;
/** Past this the memory idle connections hold matters more than descriptors. */
export const MAX_DEFAULT_CONNECTIONS = 16_384;

/**
 * The default `maxConnections`: (soft open-file limit − 64) / 2, at most 16384. Each client
 * connection may need an upstream connection of its own while its request is forwarded, so half of
 * what is left after a reserve for everything else; a cap at the limit itself would let clients
 * take the descriptors the upstream calls need. Node raises the soft limit to the hard one at
 * start, so the figure read is the one that applies.
 */
export function defaultMaxConnections(limits: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number {
  let text: string;
  try {
    text = limits();
  } catch {
    return FALLBACK_MAX_CONNECTIONS;
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  if (soft === 'unlimited') return MAX_DEFAULT_CONNECTIONS;
  const limit = Number(soft);
  if (!Number.isInteger(limit) || limit <= 0) return FALLBACK_MAX_CONNECTIONS;
  return Math.min(MAX_DEFAULT_CONNECTIONS, Math.max(1, Math.floor((limit - RESERVED_DESCRIPTORS) / 2)));
}
