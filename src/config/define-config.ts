/** Identity helper that gives `model-gateway.config.ts` / `.js` files types and editor completion. */
import type { WrittenConfig } from './schema.js';

export function defineConfig(config: WrittenConfig): WrittenConfig {
  return config;
}
