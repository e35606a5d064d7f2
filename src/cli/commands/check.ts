/**
 * `model-gateway check`: load and validate the config as `serve` would, show what it
 * does as tables, and with `--probe` call every provider for real. Invalid config: the
 * loader's ConfigError (every issue with its path) ends it with exit 1; so does any
 * problem the probe finds.
 */
import { loadConfig } from '../../config/load.js';
import type { Config } from '../../config/types.js';
import { shownEndpoint, type TracingSettings, tracingSettings } from '../../tracing/settings.js';
import { ExitError } from '../../errors.js';
import { withCredential } from '../../providers/credentials/rotating-provider.js';
import { printable } from '../../log/terminal-text.js';
import { chalkFor } from '../colour.js';
import { configWarnings, groupsTable, modelsTable, pricesTable, providersTable } from '../describe-config.js';
import type { CliIo } from '../io.js';
import { probeProvider, probeTargets, problemsOf, type ProviderProbe } from '../probe.js';
import { capabilityTable, probeProvidersTable } from '../probe-report.js';
import { REPLY_MAX_TOKENS, TOOL_MAX_TOKENS } from '../probe-requests.js';
import { serverLimitsTable } from '../server-limits.js';
import { probeRedis, sharedStateTable } from '../shared-state.js';
import { clientUrl } from '../snippets.js';
import { startSpinner } from '../spinner.js';

export const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

export interface CheckFlags {
  config?: string;
  probe?: boolean;
  timeout?: number;
  color: boolean;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export async function check(flags: CheckFlags, io: CliIo): Promise<void> {
  const { config, source } = await loadConfig({
    ...(flags.config !== undefined ? { configPath: flags.config } : {}),
    cwd: io.cwd,
    env: io.env,
  });
  const c = chalkFor(io.stdout, io.env, flags.color);
  const write = (text: string) => io.stdout.write(text);
  const heading = (text: string) => write(`\n${c.bold.underline(text)}\n`);

  const mib = config.server.maxBodyBytes / (1024 * 1024);
  // Config values, and the providers' answers below, are printed escaped.
  write(`${c.bold('config'.padEnd(8))}${printable(source.description)}\n`);
  write(`${c.bold('server'.padEnd(8))}${printable(clientUrl(config.server))} (request bodies up to ${Number.isInteger(mib) ? `${mib} MiB` : `${config.server.maxBodyBytes} bytes`})\n`);
  write(`${c.bold('metrics'.padEnd(8))}${metricsLine(config)}\n`);
  write(`${c.bold('traces'.padEnd(8))}${tracesLine(config, io.env)}\n`);
  heading('Providers');
  write(providersTable(config, c));
  heading('Models');
  write(modelsTable(config, c));
  write(c.gray('  native: passed through as sent; → p: translated to protocol p; —: not allowed for this model\n'));
  heading('Prices');
  write(pricesTable(config, c));
  write(c.gray('  USD per million tokens; reasoning is output; a model with no price costs "no price", never $0\n'));
  heading('Key groups');
  write(config.keyGroups.size > 0 ? groupsTable(config, c) : `  ${c.yellow('none')}\n`);
  heading('Server limits');
  write(serverLimitsTable(config.server, c));
  heading('Shared state');
  write(sharedStateTable(config.state, c));

  const warnings = configWarnings(config);
  if (warnings.length > 0) {
    heading('Warnings');
    for (const w of warnings) write(`  ${c.yellow('!')} ${printable(w)}\n`);
  }
  write(`\n${c.green('✔')} The config is valid${warnings.length > 0 ? ` (${plural(warnings.length, 'warning')})` : ''}.\n`);
  if (!flags.probe) return;

  const timeoutMs = flags.timeout ?? DEFAULT_PROBE_TIMEOUT_MS;
  const cErr = chalkFor(io.stderr, io.env, flags.color);
  heading('Probe');
  write(
    c.gray(
      `  per model: a reply, a stream, a forced tool call (at most ${REPLY_MAX_TOKENS}/${TOOL_MAX_TOKENS} output tokens, ${timeoutMs / 1000}s per request)\n`,
    ),
  );
  const targets = probeTargets(config);
  const probes: ProviderProbe[] = [];
  // A provider with several credentials is probed once with each, named `provider/credential`.
  const probed = [...config.providers.values()].flatMap((p) =>
    p.credentials.length > 0 ? p.credentials.map((k) => ({ provider: { ...withCredential(p, k), id: `${p.id}/${k.name}` }, of: p.id })) : [{ provider: p, of: p.id }],
  );
  for (const { provider, of } of probed) {
    const mine = targets.get(of) ?? [];
    const id = printable(provider.id);
    const spinner = startSpinner(io, cErr, `Probing ${id} (${plural(mine.length, 'model')})…`);
    const probe = await probeProvider(provider, mine, { timeoutMs });
    probes.push(probe);
    const problems = problemsOf(probe);
    if (probe.reachable.verdict === 'failed') spinner.fail(`${id}: unreachable`);
    else if (probe.credential.verdict === 'refused') spinner.fail(`${id}: credential refused`);
    else if (problems.length > 0) spinner.warn(`${id}: ${plural(problems.length, 'problem')}`);
    else spinner.succeed(`${id}: ok`);
  }

  const redisProblems: string[] = [];
  if (config.state) {
    const spinner = startSpinner(io, cErr, 'Probing Redis…');
    const redis = await probeRedis(config.state, timeoutMs);
    if (redis.verdict === 'ok') spinner.succeed(`Redis: ${redis.detail ?? 'ok'}`);
    else {
      spinner.fail('Redis: unreachable');
      redisProblems.push(`state.redis: ${redis.detail ?? 'no answer'}; while it is down, limits are ${config.state.onRedisDown.limits} and budgets ${config.state.onRedisDown.budgets}`);
    }
  }

  heading('Provider answers');
  write(probeProvidersTable(probes, c));
  heading('Capabilities');
  write(probes.some((p) => p.models.length > 0) ? capabilityTable(probes, c) : `  ${c.gray('no models')}\n`);
  write(c.gray('  ok: worked; refused: the provider said no (4xx); failed: broke otherwise; unclear: cut at the output cap; —: not declared by the model\n'));

  const problems = [...redisProblems, ...probes.flatMap(problemsOf)];
  if (problems.length === 0) {
    write(`\n${c.green('✔')} Every provider${config.state ? ' and Redis' : ''} answered; no problems found.\n`);
    return;
  }
  heading(`${plural(problems.length, 'problem')}`);
  for (const p of problems) write(`  ${c.red('✖')} ${printable(p)}\n`);
  throw new ExitError(`check --probe found ${plural(problems.length, 'problem')}.`, 1);
}

/** Where the metrics are served, and with which labels; never the token itself. */
export function metricsLine(config: Config): string {
  const m = config.metrics;
  if (!m) return 'off';
  const where =
    m.port === undefined
      ? `/metrics on the gateway's port, behind a Bearer token`
      : `http://${printable(m.host.includes(':') ? `[${m.host}]` : m.host)}:${m.port}/metrics${m.token !== undefined ? ', behind a Bearer token' : ''}`;
  return `${where}; extra labels: ${m.labels.length > 0 ? m.labels.join(', ') : 'none'}`;
}

/** Where spans go (the config's section over the OTEL_* variables), or why not. */
function tracesLine(config: Config, env: Readonly<Record<string, string | undefined>>): string {
  let settings: TracingSettings | undefined;
  try {
    settings = tracingSettings(config.tracing, env);
  } catch (err) {
    return printable((err as Error).message);
  }
  if (!settings) return 'off';
  const content = settings.captureContent ? ', with content' : '';
  return `${printable(shownEndpoint(settings.url))} (OTLP ${settings.protocol}, sampling ${settings.sampleRatio}${content})`;
}
