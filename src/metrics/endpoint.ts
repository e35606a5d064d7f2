/**
 * `GET /metrics`: on a listener of its own (loopback by default), or mounted on the gateway's port
 * behind a Bearer token, so that key holders cannot read it by accident. The token is compared
 * by its digest in constant time; a wrong one learns nothing about its length or prefix.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Mount } from '../pipeline/context.js';
import { isLoopback, pageAllowed } from '../server/host-guard.js';

export const METRICS_PATH = '/metrics';

/** What a scrape returns: the text and its content type. */
export type Scrape = () => Promise<{ readonly text: string; readonly contentType: string }>;

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Whether the request carries `Authorization: Bearer <token>`; always true without a token. */
export function tokenAccepted(req: IncomingMessage, token: Buffer | undefined): boolean {
  if (token === undefined) return true;
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer +(.+)$/i.exec(header) : null;
  // Compared even when absent, so a missing header takes the time a wrong one does.
  const given = digest(match?.[1]?.trim() ?? '');
  return timingSafeEqual(given, token) && match !== null;
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Answers one request for the metrics: the path is the caller's to check. */
function answer(req: IncomingMessage, res: ServerResponse, scrape: Scrape, token: Buffer | undefined): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    plain(res, 405, 'Method not allowed.\n', { allow: 'GET, HEAD' });
    return;
  }
  if (!tokenAccepted(req, token)) {
    plain(res, 401, 'A metrics token is required: Authorization: Bearer <token>.\n', { 'www-authenticate': 'Bearer' });
    return;
  }
  scrape().then(
    ({ text, contentType }) => {
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : text);
    },
    () => {
      if (!res.headersSent) plain(res, 500, 'The metrics could not be collected.\n');
    },
  );
}

/** `/metrics` on the gateway's port (the gateway's handler has checked Host and Origin already). */
export function metricsMount(scrape: Scrape, token: string): Mount {
  const wanted = digest(token);
  return {
    prefix: METRICS_PATH,
    handle(req, res) {
      const path = (req.url ?? '').split('?')[0];
      if (path === METRICS_PATH) answer(req, res, scrape, wanted);
      else plain(res, 404, 'Not found.\n');
    },
  };
}

export interface MetricsListener {
  /** Resolves with the metrics URL once listening. */
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

/** A listener that serves only the metrics, with the gateway's Host and Origin guard while on a loopback address. */
export function metricsListener(scrape: Scrape, options: { token: string | undefined; allowedHosts: readonly string[] }): MetricsListener {
  const token = options.token === undefined ? undefined : digest(options.token);
  let loopback = true;
  const server: Server = createServer((req, res) => {
    if (!pageAllowed(req, res, loopback, options.allowedHosts)) return;
    const path = (req.url ?? '').split('?')[0];
    if (path === METRICS_PATH) answer(req, res, scrape, token);
    else plain(res, 404, `Not found: metrics are at ${METRICS_PATH}.\n`);
  });
  server.keepAliveTimeout = 65_000;
  return {
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          loopback = isLoopback(address.address);
          const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shown}:${address.port}${METRICS_PATH}`);
        });
      });
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
