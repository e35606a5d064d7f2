/**
 * The gateway as an object: a node:http server, the state it serves with, and
 * a graceful close. `serve` (CLI) and the tests both start it through here.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../config/types.js';
import type { Logger } from '../log/logger.js';
import { createProviders, type ProviderDeps } from '../providers/registry.js';
import { createHandler, type GatewayState } from './handle.js';

export interface GatewayOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly version?: string;
  readonly providerDeps?: ProviderDeps;
}

export interface Gateway {
  readonly server: Server;
  /** Listens on the config's host and port unless given others; resolves with the base URL. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops accepting, lets in-flight requests finish for up to `graceMs`, then cuts the rest. */
  close(graceMs?: number): Promise<void>;
  readonly state: GatewayState;
}

export function createGateway(options: GatewayOptions): Gateway {
  const state: GatewayState = {
    config: options.config,
    providers: createProviders(options.config, options.providerDeps),
  };
  const handler = createHandler(() => state, {
    logger: options.logger,
    version: options.version ?? '0.0.0',
    startedAt: Date.now(),
  });

  let inFlight = 0;
  let idle: (() => void) | undefined;
  const server = createServer((req, res) => {
    inFlight++;
    res.once('close', () => {
      inFlight--;
      if (inFlight === 0) idle?.();
    });
    handler(req, res);
  });
  // LLM calls run for minutes; the client side must not be cut by Node's defaults.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 65_000;

  return {
    server,
    state,
    listen(port = options.config.server.port, host = options.config.server.host) {
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
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          idle = resolve;
          setTimeout(resolve, graceMs).unref();
        });
      }
      server.closeAllConnections();
      await closed;
      await Promise.all([...state.providers.values()].map((p) => p.close()));
      await options.logger.close();
    },
  };
}
