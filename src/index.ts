/**
 * The programmatic API: start a gateway from code (tests, scripts, other tools)
 * with the same pieces `model-gateway serve` uses.
 *
 * @example
 * ```ts
 * import { Chalk } from 'chalk';
 * import { createGateway, createLogger, loadConfig } from 'model-gateway';
 * const { config } = await loadConfig({});
 * const gateway = createGateway({ config, logger: createLogger({ out: process.stdout, chalk: new Chalk() }) });
 * console.log(await gateway.listen());
 * ```
 */
export { loadConfig, type LoadConfigOptions } from './config/load.js';
export { parseConfig, type ParseConfigOptions } from './config/parse.js';
export { defineConfig } from './config/define-config.js';
export type { WrittenConfig } from './config/schema.js';
export type { Config, LoadedConfig, ConfigSource } from './config/types.js';
export { createGateway, type Gateway, type GatewayOptions } from './server/gateway.js';
export { loadRedisClient } from './state/redis-client.js';
export { createLogger, type Logger, type LoggerOptions } from './log/logger.js';
export { ConfigError, GatewayError } from './errors.js';
export type { Protocol, Feature } from './protocols/types.js';
