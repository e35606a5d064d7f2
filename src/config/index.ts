/** The config module's public surface. Code outside `config/` imports from here. */
export { loadConfig, MODULE_NAME, SEARCH_PLACES, type LoadConfigOptions } from './load.js';
export { parseConfig, type ParseConfigOptions } from './parse.js';
export { defineConfig } from './define-config.js';
export { defaultWrittenConfig, type DefaultConfig } from './default.js';
export { writtenConfigSchema, type WrittenConfig } from './schema.js';
export { compareSpecificity, compileGlob, globProblem, isGlob, matchGlob } from './glob.js';
export { generateKey, hashKey, keyDigest, keyId } from './keys.js';
export { PROVIDER_DEFAULTS } from './normalize.js';
export type { Env } from './env.js';
export type * from './types.js';
export { PROVIDER_TYPES } from './types.js';
