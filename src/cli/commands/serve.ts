/**
 * `model-gateway serve`: load the config, start the gateway (with the inspector unless --no-inspector),
 * print the banner, reload the config file when it changes (unless --no-watch), stop gracefully on a signal.
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../config/load.js';
import { shownEndpoint, tracingSettings } from '../../tracing/settings.js';
import type { Config } from '../../config/types.js';
import { ExitError } from '../../errors.js';
import { createLogger } from '../../log/logger.js';
import { createInspector, type InspectorOptions } from '../../inspector/inspector.js';
import { createGateway, type Gateway } from '../../server/gateway.js';
import { DEFAULT_HOST } from '../../config/defaults.js';
import { dataDir } from '../../storage/data-dir.js';
import { loadInstallSecret } from '../../storage/install-secret.js';
import { printable } from '../../log/terminal-text.js';
import { VERSION } from '../../version.js';
import { formatBanner } from '../banner.js';
import { chalkFor } from '../colour.js';
import type { CliIo } from '../io.js';
import { watchConfig, type ConfigWatcher } from '../watch-config.js';

export interface ServeFlags {
  config?: string;
  host?: string;
  port?: number;
  verbose?: boolean;
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
  inspectorStreamBuffer?: number;
  inspectorSessionIdle?: number;
  inspectorSessionMax?: number;
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
    verbose: flags.verbose ?? false,
    ...(flags.logFile !== undefined ? { logFile: flags.logFile } : {}),
    ...(flags.logBodies === false ? { logBodies: false } : {}),
  });
  // On unless --no-inspector. It keeps and captures exchanges only while a page is open (see captureWhile).
  const inspector =
    flags.inspector === false
      ? undefined
      : createInspector(inspectorOptions(flags));
  const secret = loadInstallSecret(dataDir({ configured: config.server.dataDir, env: io.env, platform: process.platform, home: homedir() }));
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
  const observers = [...(inspector ? [inspector.observer] : []), ...(metrics ? [metrics.observer] : [])];
  const mounts = [...(inspector ? [inspector.mount] : []), ...(metrics?.mount ? [metrics.mount] : [])];
  gateway = createGateway({
    config,
    logger,
    version: VERSION,
    sealKey: secret.key,
    ...(inspector ? { captureWhile: () => inspector.watching } : {}),
    ...(observers.length > 0 ? { observers } : {}),
    ...(mounts.length > 0 ? { mounts } : {}),
    ...(metrics ? { metrics: metrics.hooks } : {}),
    ...(tracer ? { tracer } : {}),
  });

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
    }),
  );

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
  logger.info(chalk.gray('stopped'));
}

/** The inspector's settings from serve's flags, in the units the flags are given in (MiB, KiB, hours). */
export function inspectorOptions(flags: ServeFlags): InspectorOptions {
  return {
    ...(flags.inspectorKeep !== undefined ? { capacity: flags.inspectorKeep } : {}),
    ...(flags.inspectorMemory !== undefined ? { maxBytes: flags.inspectorMemory * 1024 * 1024 } : {}),
    ...(flags.inspectorStreamBuffer !== undefined ? { maxBufferedBytes: flags.inspectorStreamBuffer * 1024 } : {}),
    ...(flags.inspectorSessionIdle !== undefined ? { sessionIdleMs: flags.inspectorSessionIdle * HOUR_MS } : {}),
    ...(flags.inspectorSessionMax !== undefined ? { sessionMaxMs: flags.inspectorSessionMax * HOUR_MS } : {}),
  };
}
