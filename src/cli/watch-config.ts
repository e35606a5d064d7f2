/**
 * `serve --watch`: watches the config file and, when its content changes, loads and validates
 * it, prints what changed, and swaps the gateway's state. An edit that does not load leaves the
 * running config in place and prints the problems.
 *
 * The folder is watched rather than the file: editors save by writing a new file and renaming
 * it over the old one, which ends a watch on the file itself. Events are debounced because one
 * save arrives as several (truncate and write, or create and rename), and a save that leaves the
 * content as it was is ignored.
 */
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ChalkInstance } from 'chalk';
import { diffConfig, type FieldChange } from '../config/diff.js';
import type { Config } from '../config/types.js';
import { ConfigError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { printable } from '../log/terminal-text.js';
import type { Gateway } from '../server/gateway.js';
import { clock, formatApplied, formatRejected, formatRetired } from './reload-summary.js';

/** Long enough to cover one save's burst of events, short enough to feel immediate. */
export const DEBOUNCE_MS = 150;

/** Node caches imported modules by URL, so cosmiconfig would hand back the old JavaScript config. */
const CACHED_MODULE = /\.(js|cjs|mjs)$/;

/** Server settings a running gateway cannot take on: where it listens, and the data folder read at start. */
const RESTART_FIELDS = new Set(['host', 'port', 'dataDir', 'state.redis', 'state.keyPrefix', 'state.onRedisDown.limits', 'state.onRedisDown.budgets', 'state.commandTimeoutMs']);
/** Sections set up once at start: the metrics' registry and listener, the tracer and its exporter. */
const RESTART_SECTIONS = /^(?:metrics|tracing)(?:\.|$)/;

const needsRestart = (f: FieldChange): boolean => RESTART_FIELDS.has(f.field) || RESTART_SECTIONS.test(f.field);

export interface WatchConfigOptions {
  /** Absolute path of the config file. */
  readonly file: string;
  /** How the file is named in messages. */
  readonly name: string;
  /** Loads and validates the file as it is now (throws `ConfigError`). */
  readonly load: () => Promise<Config>;
  readonly gateway: Pick<Gateway, 'state' | 'reload'>;
  readonly logger: Logger;
  readonly chalk: ChalkInstance;
  /** Where the gateway listens, for the "cannot move" notice. */
  readonly url: string;
  readonly debounceMs?: number;
  readonly now?: () => number;
}

export interface ConfigWatcher {
  /** Stops watching; resolves once a reload under way has finished. */
  close(): Promise<void>;
}

export function watchConfig(options: WatchConfigOptions): ConfigWatcher {
  const { file, name, gateway, logger, chalk: c } = options;
  const now = options.now ?? Date.now;
  const base = path.basename(file);
  // The name and error texts are printed escaped here; reload-summary.ts escapes what it is given.
  const shown = printable(name);
  let generation = 1;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  // What the running config was loaded from: the initial load read it just now. Read before the
  // watch starts, so an edit made right after start-up is compared with the file as it was.
  let lastContent: Buffer | undefined = readContentSync(file);

  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(path.dirname(file), (_event, filename) => {
      // Some platforms omit the name; the content check then filters what is not ours.
      if (filename !== null && filename !== base) return;
      clearTimeout(timer);
      timer = setTimeout(start, options.debounceMs ?? DEBOUNCE_MS);
    });
    watcher.on('error', (err) => {
      logger.info(`${c.gray(clock(now()))} ${c.red('✗')} stopped watching ${shown}: ${printable(err.message)}; restart serve to watch again`);
    });
    logger.info(c.gray(`Watching ${shown} for changes (--no-watch turns this off).`));
  } catch (err) {
    // Out of inotify watches, for one: serving matters more than reloading.
    logger.info(`${c.yellow('!')} cannot watch ${shown} (${printable((err as Error).message)}); edits take effect on restart`);
  }

  // One reload at a time; events during one ask for one more check after it.
  function start(): void {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = check()
      .catch((err: unknown) => {
        // A provider that cannot be built, for one; the running config stays.
        logger.info(`${c.gray(clock(now()))} ${c.red('✗')} reload of ${shown} failed: ${printable(err instanceof Error ? err.message : String(err))}`);
      })
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          start();
        }
      });
  }

  async function check(): Promise<void> {
    const content = await readContent(file);
    if (sameContent(lastContent, content)) return;
    lastContent = content;

    if (CACHED_MODULE.test(file)) {
      logger.info(
        `${c.gray(clock(now()))} ${c.yellow.bold('!')} ${shown} changed, ${c.yellow('not applied')}: Node caches JavaScript ` +
          'modules, so a JavaScript config takes effect on restart (JSON, YAML and TypeScript configs reload live)',
      );
      return;
    }

    let loaded: Config;
    try {
      loaded = await options.load();
    } catch (err) {
      const problem = err instanceof ConfigError ? err.message : `could not load: ${err instanceof Error ? err.message : String(err)}`;
      logger.info(formatRejected(name, generation, problem, now(), c));
      return;
    }
    if (closed) return;

    const serving = gateway.state.config;
    const changes = diffConfig(serving, loaded);
    const server = changes.find((change) => change.section === 'server');
    const notApplied: FieldChange[] = server ? server.fields.filter(needsRestart) : [];
    const applied = changes.flatMap((change) => {
      if (change !== server) return [change];
      const rest = change.fields.filter((f) => !notApplied.includes(f));
      return rest.length > 0 ? [{ ...change, fields: rest }] : [];
    });

    if (applied.length === 0) {
      logger.info(formatApplied({ file: name, generation, applied, notApplied, url: options.url, inFlight: 0, now: now() }, c));
      return;
    }
    // The state keeps describing the socket it really serves on, and the metrics and traces it really makes.
    const next: Config = {
      ...loaded,
      server: { ...loaded.server, host: serving.server.host, port: serving.server.port },
      metrics: serving.metrics,
      tracing: serving.tracing,
    };
    const replaced = gateway.reload(next);
    const retiring = generation++;
    logger.info(
      formatApplied({ file: name, generation, applied, notApplied, url: options.url, inFlight: replaced.inFlight, now: now() }, c),
    );
    if (replaced.inFlight > 0) {
      void replaced.retired.then(() => {
        if (!closed) logger.info(formatRetired(retiring, replaced.inFlight, now(), c));
      });
    }
  }

  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      watcher?.close();
      await running;
    },
  };
}

async function readContent(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch {
    // Missing or unreadable: the loader says why, in its own words.
    return undefined;
  }
}

function readContentSync(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

function sameContent(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.equals(b);
}
