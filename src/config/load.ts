/**
 * Finds and reads the config file (cosmiconfig), or falls back to the built-in default,
 * then parses it. Read and parse failures become `ConfigError`s like validation failures,
 * so the CLI has one error to print.
 */
import path from 'node:path';
import { cosmiconfig, getDefaultSearchPlaces } from 'cosmiconfig';
import { ConfigError } from '../errors.js';
import { defaultWrittenConfig } from './default.js';
import type { Env } from './env.js';
import { parseConfig } from './parse.js';
import type { Config, LoadedConfig } from './types.js';
import { loadRedisClient } from '../state/redis-client.js';

export const MODULE_NAME = 'model-gateway';

/** cosmiconfig's places for `model-gateway` (package.json field, `.model-gatewayrc*`, `model-gateway.config.*`, ...), then ours. */
export const SEARCH_PLACES: readonly string[] = [
  ...getDefaultSearchPlaces(MODULE_NAME),
  'gateway.config.json',
  'gateway.config.yaml',
  'gateway.config.yml',
];

export interface LoadConfigOptions {
  /** `--config FILE`; relative to `cwd`. When given, no search happens. */
  readonly configPath?: string | undefined;
  /** Where to search (this directory only). Default: `process.cwd()`. */
  readonly cwd?: string | undefined;
  /** Default: `process.env`. */
  readonly env?: Env | undefined;
}

export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const loaded = await findConfig(options);
  // Loaded here, where waiting is free, so that a gateway sharing state through Redis finds its client at once.
  if (loaded.config.state) await loadRedisClient();
  return loaded;
}

async function findConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const env = options.env ?? process.env;
  // No cache: a reload must see the file as it is now.
  const explorer = cosmiconfig(MODULE_NAME, { searchPlaces: [...SEARCH_PLACES], cache: false });

  if (options.configPath !== undefined) {
    const filepath = path.resolve(cwd, options.configPath);
    const result = await readOrThrow(() => explorer.load(filepath), filepath);
    if (result === null || result.isEmpty) {
      const message =
        path.basename(filepath) === 'package.json' ? `no "${MODULE_NAME}" field in package.json` : 'config file is empty';
      throw new ConfigError([{ path: '', message }], filepath);
    }
    return fromFile(result.config, result.filepath, env);
  }

  const found = await readOrThrow(() => explorer.search(cwd), undefined);
  if (found !== null) return fromFile(found.config, found.filepath, env);

  const { written, generatedKey } = defaultWrittenConfig(env);
  const description = `built-in default (no config file found in ${cwd})`;
  const config = parseConfig(written, { env, source: description });
  return {
    config,
    source: generatedKey === undefined ? { filepath: undefined, description } : { filepath: undefined, description, generatedKey },
  };
}

/**
 * The `server` section alone, for a command that needs only the gateway's address (`replay`): the
 * rest of the file is not checked, so a provider key that is not set in this shell does not stop it.
 */
export async function loadServerSection(options: LoadConfigOptions = {}): Promise<{ readonly server: Config['server']; readonly source: string }> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const env = options.env ?? process.env;
  const explorer = cosmiconfig(MODULE_NAME, { searchPlaces: [...SEARCH_PLACES], cache: false });
  const filepath = options.configPath !== undefined ? path.resolve(cwd, options.configPath) : undefined;
  const found = await readOrThrow(() => (filepath !== undefined ? explorer.load(filepath) : explorer.search(cwd)), filepath);
  if (found === null || found.isEmpty) {
    if (filepath !== undefined) throw new ConfigError([{ path: '', message: 'config file is empty' }], filepath);
    return { server: parseConfig(defaultWrittenConfig(env).written, { env }).server, source: `built-in default (no config file found in ${cwd})` };
  }
  const raw = found.config as unknown;
  const server = typeof raw === 'object' && raw !== null && 'server' in raw ? (raw as { server: unknown }).server : undefined;
  const alone = { providers: {}, models: {}, ...(server === undefined ? {} : { server }) };
  return { server: parseConfig(alone, { env, source: found.filepath }).server, source: found.filepath };
}

function fromFile(raw: unknown, filepath: string, env: Env): LoadedConfig {
  return { config: parseConfig(raw, { env, source: filepath }), source: { filepath, description: filepath } };
}

async function readOrThrow<T>(read: () => Promise<T>, filepath: string | undefined): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw toConfigError(error, filepath);
  }
}

function toConfigError(error: unknown, filepath: string | undefined): ConfigError {
  const e = error as { code?: unknown; filepath?: unknown; message?: unknown };
  const file = typeof e.filepath === 'string' ? e.filepath : filepath;
  if (e.code === 'ENOENT' && filepath !== undefined) {
    return new ConfigError([{ path: '', message: `config file not found: ${filepath}` }], filepath);
  }
  if (e.code === 'EISDIR' && filepath !== undefined) {
    return new ConfigError([{ path: '', message: `not a file: ${filepath}` }], filepath);
  }
  const text = typeof e.message === 'string' ? e.message : String(error);
  return new ConfigError([{ path: '', message: parseErrorMessage(text) }], file);
}

/**
 * One line from a loader's error. cosmiconfig prefixes "JSON Error in <path>:" (the path is
 * already the source) and parse-json / js-yaml add coloured code frames, which the
 * `path: message` list cannot show well; js-yaml's first line already carries (line:column).
 */
export function parseErrorMessage(text: string): string {
  const match = /^(\w+) Error in [^\n]*?:\s*/.exec(text);
  const body = (match ? text.slice(match[0].length) : text).replace(/\u001b\[[0-9;]*m/g, '');
  const isFrame = (line: string) => /^\s*>?\s*\d*\s*\|/.test(line) || /^\s*-*\^\s*$/.test(line);
  const summary = body.split('\n').find((line) => line.trim() !== '' && !isFrame(line))?.trim() ?? 'unreadable file';
  return match ? `could not parse (${match[1]}): ${summary}` : `could not load: ${summary}`;
}
