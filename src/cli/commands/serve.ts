/**
 * `model-gateway serve`: load the config, start the gateway (with the inspector unless --no-inspector),
 * print the banner, reload the config file when it changes (unless --no-watch), stop gracefully on a signal.
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../config/load.js';
import { shownEndpoint, tracingSettings } from '../../tracing/settings.js';
import type { Config, InspectorConfig } from '../../config/types.js';
import { ExitError } from '../../errors.js';
import { createLogger, type Logger } from '../../log/logger.js';
import type { Verbosity } from '../../log/detail.js';
import { createInspector, type Inspector, type InspectorOptions } from '../../inspector/inspector.js';
import { mayInspect } from '../../inspector/sign-in.js';
import { ledgerFacts, readLedgerTail } from '../../inspector/from-ledger.js';
import { clearLinkKey, linkKeyFile, newLinkKey, writeLinkKey } from '../../inspector/link-key.js';
import { createGateway, type Gateway, type GatewayOptions } from '../../server/gateway.js';
import { DEFAULT_HOST } from '../../config/defaults.js';
import { dataDir, ledgerDir } from '../../storage/data-dir.js';
import { loadInstallSecret } from '../../storage/install-secret.js';
import { printable } from '../../log/terminal-text.js';
import { VERSION } from '../../version.js';
import { formatBanner } from '../banner.js';
import { chalkFor } from '../colour.js';
import type { CliIo } from '../io.js';
import { watchConfig, type ConfigWatcher } from '../watch-config.js';
import { clearState, writeState } from '../background-files.js';
import { releaseYoungGeneration } from '../young-generation.js';

export interface ServeFlags {
  config?: string;
  host?: string;
  port?: number;
  /** How many times `-v` / `--verbose` was given: 1 the detail, 2 (`-vv`) or more the detail raw. */
  verbose?: number;
  logFile?: string;
  /** False with `--no-log-bodies`. */
  logBodies?: boolean;
  color: boolean;
  /** `--watch` / `--no-watch`; undefined when neither is given, which watches a config file when there is one. */
  watch?: boolean;
  /** False with `--no-inspector` (commander sets true otherwise). */
  inspector?: boolean;
  inspectorKeep?: number;
  inspectorMemory?: number;
  /** `--inspector-history` / `--no-inspector-history`; undefined when neither is given (the config's `inspector.history`). */
  inspectorHistory?: boolean;
  inspectorStreamBuffer?: number;
  inspectorSessionIdle?: number;
  inspectorSessionMax?: number;
  /** Where a gateway started in the background says where it listens (cli/background.ts). */
  backgroundState?: string;
  /** `--metrics-port N`: metrics on, served on a listener of their own on this port. */
  metricsPort?: number;
}

const HOUR_MS = 60 * 60 * 1000;

/** How long in-flight requests may take to finish after SIGINT/SIGTERM. */
const SHUTDOWN_GRACE_MS = 5000;

function withFlags(config: Config, flags: ServeFlags): Config {
  const metrics =
    flags.metricsPort === undefined
      ? config.metrics
      : { host: DEFAULT_HOST, token: undefined, labels: [], ...config.metrics, port: flags.metricsPort };
  return {
    ...config,
    server: { ...config.server, host: flags.host ?? config.server.host, port: flags.port ?? config.server.port },
    metrics,
  };
}

export async function serve(flags: ServeFlags, io: CliIo): Promise<void> {
  const loaded = await loadConfig({
    ...(flags.config !== undefined ? { configPath: flags.config } : {}),
    cwd: io.cwd,
    env: io.env,
  });
  const config = withFlags(loaded.config, flags);
  const chalk = chalkFor(io.stdout, io.env, flags.color);
  const logger = createLogger({
    out: io.stdout,
    chalk,
    verbose: Math.min(flags.verbose ?? 0, 2) as Verbosity,
    ...(flags.logFile !== undefined ? { logFile: flags.logFile } : {}),
    ...(flags.logBodies === false ? { logBodies: false } : {}),
  });
  // On unless --no-inspector. With `inspector.history` (the default) it keeps every request, whole as
  // `inspector.bodiesPerSecond` allows; without, only while a page is open (see inspectorWiring).
  // A key may sign in to the inspector as the config being served says (read at each sign-in, so a reload counts).
  let served: () => Config | undefined = () => undefined;
  // `status --link` asks for a fresh link with this key, written for the local user once the port is known.
  const linkKey = flags.inspector === false ? undefined : newLinkKey();
  const inspector =
    flags.inspector === false
      ? undefined
      : createInspector({
          ...inspectorOptions(flags, config.inspector),
          ...(linkKey !== undefined ? { linkKey } : {}),
          signIn: (key) => {
            const current = served();
            return current !== undefined && mayInspect(current, key);
          },
        });
  const dir = dataDir({ configured: config.server.dataDir, env: io.env, platform: process.platform, home: homedir() });
  if (inspector !== undefined && config.server.ledger !== false) await restoreHistory(inspector, ledgerDir(dir), flags.inspectorKeep ?? config.inspector.keep, logger);
  const secret = loadInstallSecret(dir);
  if (secret.kind === 'ephemeral') {
    logger.info(`cannot keep the install secret in ${printable(secret.file)} (${printable(secret.why)}): reasoning sealed by this run will not open after a restart`);
  }
  // Read at start, like the listening address: the gateway's state is read as each request ends.
  let gateway: Gateway | undefined;
  // prom-client is loaded only when metrics are on.
  const metrics = config.metrics
    ? (await import('../../metrics/metrics.js')).createMetrics(config.metrics, {
        config: () => gateway!.state.config,
        providers: () => gateway!.state.providers.values(),
        allowedHosts: config.server.allowedHosts,
      })
    : undefined;
  // The OpenTelemetry packages are loaded only when tracing is on (the config's section or the OTEL_* variables).
  const traces = tracingSettings(config.tracing, io.env);
  const tracer = traces ? await (await import('../../tracing/tracer.js')).startTracer(traces, VERSION) : undefined;
  const wiring = inspector ? inspectorWiring(inspector) : undefined;
  const observers = [...(wiring?.observers ?? []), ...(metrics ? [metrics.observer] : [])];
  const mounts = [...(wiring?.mounts ?? []), ...(metrics?.mount ? [metrics.mount] : [])];
  gateway = createGateway({
    config,
    logger,
    version: VERSION,
    sealKey: secret.key,
    ledgerDir: ledgerDir(dir),
    ...wiring,
    ...(observers.length > 0 ? { observers } : {}),
    ...(mounts.length > 0 ? { mounts } : {}),
    ...(metrics ? { metrics: metrics.hooks } : {}),
    ...(tracer ? { tracer } : {}),
  });

  served = () => gateway.state.config;

  let url: string;
  try {
    url = await gateway.listen();
  } catch (err) {
    await gateway.close(0);
    const code = (err as { code?: string }).code;
    const where = `${config.server.host}:${config.server.port}`;
    throw new ExitError(
      code === 'EADDRINUSE'
        ? `Cannot listen on ${where}: the port is in use. Pick another with --port (0 picks a free one).`
        : `Cannot listen on ${where}: ${(err as Error).message}`,
      1,
    );
  }
  let metricsUrl: string | undefined;
  try {
    metricsUrl = await metrics?.listen(url);
  } catch (err) {
    await gateway.close(0);
    await tracer?.shutdown();
    const where = `${config.metrics?.host}:${config.metrics?.port}`;
    const code = (err as { code?: string }).code;
    throw new ExitError(
      code === 'EADDRINUSE'
        ? `Cannot serve metrics on ${where}: the port is in use. Pick another with --metrics-port (0 picks a free one).`
        : `Cannot serve metrics on ${where}: ${(err as Error).message}`,
      1,
    );
  }
  const inspectorUrl = inspector?.link(url);
  const linkFile = linkKey !== undefined ? keepLinkKey(linkKeyFile(dir, Number(new URL(url).port)), linkKey, logger) : undefined;
  const metricsLine = metricsUrl && { url: metricsUrl, token: config.metrics?.token !== undefined };
  io.stdout.write(
    formatBanner({
      url,
      config,
      source: loaded.source,
      chalk,
      version: VERSION,
      ...(inspectorUrl ? { inspectorUrl } : {}),
      ...(metricsLine ? { metrics: metricsLine } : {}),
      ...(traces ? { traces: { url: shownEndpoint(traces.url), protocol: traces.protocol } } : {}),
      addressFromFlags: flags.host !== undefined || flags.port !== undefined,
    }),
  );
  if (flags.backgroundState !== undefined) writeState(flags.backgroundState, { pid: process.pid, url, inspectorUrl });
  releaseYoungGeneration();

  let watcher: ConfigWatcher | undefined;
  const file = loaded.source.filepath;
  if (file !== undefined && flags.watch !== false) {
    const relative = path.relative(io.cwd, file);
    const name = relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
    const load = async () => withFlags((await loadConfig({ configPath: file, cwd: io.cwd, env: io.env })).config, flags);
    watcher = watchConfig({ file, name, load, gateway, logger, chalk, url });
  } else if (file === undefined && flags.watch === true) {
    io.stderr.write('--watch has nothing to watch: serving the built-in default, not a config file.\n');
  }

  const signal = await io.stopSignal();
  logger.info(chalk.gray(`${signal}: stopping; in-flight requests have ${SHUTDOWN_GRACE_MS / 1000}s to finish`));
  await watcher?.close();
  // Open inspector pages hold event streams; ended now, they do not make the close wait out its grace period.
  inspector?.close();
  await gateway.close(SHUTDOWN_GRACE_MS);
  await metrics?.close();
  // The spans of the last requests are sent before the process ends.
  await tracer?.shutdown();
  if (flags.backgroundState !== undefined) clearState(flags.backgroundState, process.pid);
  if (linkFile !== undefined) clearLinkKey(linkFile, linkKey!);
  logger.info(chalk.gray('stopped'));
}

/**
 * The inspector's rows from before this start: the last `keep` requests of the usage ledger, their facts only.
 * A ledger that cannot be read costs the history, not the start.
 */
async function restoreHistory(inspector: Inspector, dir: string, keep: number, logger: Logger): Promise<void> {
  try {
    const tail = await readLedgerTail(dir, keep);
    inspector.addRestored(tail.entries.map((e, i) => ledgerFacts(e, i)));
    if (tail.skipped > 0) logger.info(`inspector: ${tail.skipped} line(s) at the end of the usage ledger were not entries, and were skipped`);
  } catch (err) {
    logger.info(`inspector: the usage ledger could not be read (${printable((err as Error).message)}): no history from before this start`);
  }
}

/** Writes the link key for `status --link`; the file's path, or undefined (said once) when the data folder cannot hold it. */
function keepLinkKey(file: string, key: string, logger: Logger): string | undefined {
  try {
    writeLinkKey(file, key);
    return file;
  } catch (err) {
    logger.info(`cannot write ${printable(file)} (${printable((err as Error).message)}): status --link cannot ask this gateway for a fresh inspector link`);
    return undefined;
  }
}

/** What createGateway is given for the inspector: capture while it says so (a page open, or history's rate). */
export function inspectorWiring(inspector: Inspector): Pick<GatewayOptions, 'captureWhile' | 'observers' | 'mounts'> {
  return { captureWhile: () => inspector.capturing, observers: [inspector.observer], mounts: [inspector.mount] };
}

/** The inspector's settings from the config's `inspector` section and serve's flags (which win), in the units they are given in (MiB, KiB, hours). */
export function inspectorOptions(flags: ServeFlags, settings?: InspectorConfig): InspectorOptions {
  const keep = flags.inspectorKeep ?? settings?.keep;
  const memoryMiB = flags.inspectorMemory ?? settings?.memoryMiB;
  const history = flags.inspectorHistory ?? settings?.history;
  const bodiesPerSecond = settings?.bodiesPerSecond;
  return {
    ...(keep !== undefined ? { capacity: keep } : {}),
    ...(memoryMiB !== undefined ? { maxBytes: memoryMiB * 1024 * 1024 } : {}),
    ...(history !== undefined ? { history } : {}),
    ...(bodiesPerSecond !== undefined ? { bodiesPerSecond } : {}),
    ...(flags.inspectorStreamBuffer !== undefined ? { maxBufferedBytes: flags.inspectorStreamBuffer * 1024 } : {}),
    ...(flags.inspectorSessionIdle !== undefined ? { sessionIdleMs: flags.inspectorSessionIdle * HOUR_MS } : {}),
    ...(flags.inspectorSessionMax !== undefined ? { sessionMaxMs: flags.inspectorSessionMax * HOUR_MS } : {}),
  };
}
