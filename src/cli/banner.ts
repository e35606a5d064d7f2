/**
 * The start-up banner, about a dozen lines at 80 columns: where the gateway listens, what it serves
 * (secrets masked), and how to start a client on it. What each client needs in full is one command
 * away (`model-gateway env <client>`).
 */
import type { ChalkInstance } from 'chalk';
import type { Config, ConfigSource, GatewayKey, OnRedisDown, ProviderConfig } from '../config/types.js';
import { shownRedisUrl } from '../state/redis-url.js';
import { printable } from '../log/terminal-text.js';
import { providerKind } from '../providers/kinds.js';
import { GATEWAY_KEY_VAR, shellQuote } from './snippets.js';

export interface BannerInput {
  readonly url: string;
  readonly config: Config;
  readonly source: ConfigSource;
  readonly chalk: ChalkInstance;
  readonly version: string;
  /** The inspector's one-time link, when it is on. */
  readonly inspectorUrl?: string;
  /** Where Prometheus scrapes the metrics, when they are on, and whether it must send a token. */
  readonly metrics?: { readonly url: string; readonly token: boolean };
  /** Where spans are sent, when tracing is on. */
  readonly traces?: { readonly url: string; readonly protocol: string };
  /** The address came from `serve --host` or `--port`: the commands that read the config (`claude`, `env`) look elsewhere. */
  readonly addressFromFlags?: boolean;
}

/** A provider credential as the banner may show it: set or not, and its last four characters at most. */
export function maskSecret(secret: string | undefined): string {
  if (!secret) return 'no key';
  return secret.length >= 16 ? `key …${printable(secret.slice(-4))}` : 'key set';
}

/**
 * A key group's keys by name (or id), the first few: a team's group of hundreds would fill the
 * screen. Never "and 1 more": that many names fit.
 */
export function keyNames(keys: readonly GatewayKey[], max = 5): string {
  const shown = keys.length > max ? keys.slice(0, max - 1) : keys;
  const names = shown.map((k) => printable(k.name ?? k.id)).join(', ');
  return keys.length > shown.length ? `${names} and ${keys.length - shown.length} more` : names;
}

function providerLine(p: ProviderConfig): string {
  const { describe } = providerKind(p.type);
  const where = printable(describe.where(p));
  if (describe.credential === undefined) return `${printable(p.id)} (${p.type}, ${where})`;
  const credential = p.credentials.length > 0 ? `${p.credentials.length} credentials` : maskSecret(p.apiKey);
  return `${printable(p.id)} (${p.type}, ${where}, ${credential})`;
}

export function formatBanner({ url, config, source, chalk: c, version, inspectorUrl, metrics, traces, addressFromFlags }: BannerInput): string {
  const label = (s: string) => c.bold(s.padEnd(10));
  const lines: string[] = [];
  lines.push(`${c.bold.green('model-gateway')} ${version} listening on ${c.bold.underline(printable(url))}`);
  // Names and values from the config are printed escaped, like everything else that came from outside.
  lines.push(`${label('config')}${printable(source.description)}`);
  lines.push(`${label('providers')}${[...config.providers.values()].map(providerLine).join(c.gray(' · '))}`);
  const models = [...config.models.values(), ...config.modelGlobs].map(
    (m) => printable(`${m.pattern} → ${m.provider}${m.upstreamModel ? `/${m.upstreamModel}` : ''}`),
  );
  lines.push(`${label('models')}${models.join(c.gray(' · ')) || c.yellow('none')}`);
  const groups = [...config.keyGroups.values()].map(
    (g) => `${printable(g.name)} (${g.keys.length} key${g.keys.length === 1 ? '' : 's'}: ${keyNames(g.keys)}; models ${printable(g.models.join(', '))})`,
  );
  lines.push(`${label('groups')}${groups.join(c.gray(' · ')) || c.yellow('none: every request will be refused')}`);
  if (config.state) {
    const whileDown = (policy: OnRedisDown) => (policy === 'open' ? "this gateway's own while it is down" : 'refused while it is down');
    const { limits, budgets } = config.state.onRedisDown;
    lines.push(
      `${label('shared')}limits, budgets, wrong keys and cool-downs in Redis at ${printable(shownRedisUrl(config.state.redis))} ${c.gray(`(limits ${whileDown(limits)}; budgets ${whileDown(budgets)})`)}`,
    );
  }

  if (inspectorUrl) {
    lines.push(`${label('inspector')}${c.underline(inspectorUrl)} ${c.gray('(works once)')}`);
  }
  if (metrics) {
    lines.push(`${label('metrics')}${c.underline(printable(metrics.url))} ${c.gray(metrics.token ? '(Prometheus text; send metrics.token as a Bearer token)' : '(Prometheus text)')}`);
  }
  if (traces) lines.push(`${label('traces')}${printable(traces.url)} ${c.gray(`(OTLP ${printable(traces.protocol)})`)}`);

  if (source.generatedKey) {
    lines.push(`${label('key')}${c.bold.yellow(source.generatedKey)} ${c.gray('(generated for this run; set MODEL_GATEWAY_KEY to keep one)')}`);
  }

  // The clients in a few lines: the one command that starts each, and where the rest is (`model-gateway env`).
  const key = source.generatedKey !== undefined ? `${GATEWAY_KEY_VAR}=${shellQuote(source.generatedKey)} ` : '';
  // A port picked at start, or an address given on the command line, is not in the config, where the
  // launcher and `env` would look for the gateway.
  const at = config.server.port === 0 || addressFromFlags === true ? ` --url ${printable(url)}` : '';
  lines.push(`${label('clients')}${key}npx model-gateway claude${at} ${c.gray('(or codex, gemini)')}`);
  // With the URL in it, the line has no room left for its note at 80 columns.
  lines.push(`${' '.repeat(10)}npx model-gateway env <client>${at || ` ${c.gray('prints the settings to paste')}`}`);
  lines.push(`${' '.repeat(10)}${printable(url)}/v1 ${c.gray('for OpenAI SDKs,')} ${printable(url)} ${c.gray('for Anthropic and Google')}`);
  lines.push(c.gray('Ctrl-C stops it. Requests are logged below.'), '');
  return `${lines.join('\n')}\n`;
}
