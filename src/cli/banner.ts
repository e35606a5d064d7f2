/**
 * The start-up banner: where the gateway listens, what it serves (secrets
 * masked), and ready-to-paste lines for Claude Code, Codex, the Gemini CLI and the two SDKs.
 */
import type { ChalkInstance } from 'chalk';
import type { Config, ConfigSource, GatewayKey, ProviderConfig } from '../config/types.js';
import { shownRedisUrl } from '../state/redis-url.js';
import { printable } from '../log/terminal-text.js';
import { providerKind } from '../providers/kinds.js';
import {
  anthropicEnv,
  claudeCodeEnv,
  claudeModelFor,
  codexModelFor,
  codexToml,
  CODEX_ENV_KEY,
  geminiCliEnv,
  geminiCliSettings,
  geminiModelFor,
  inlineEnv,
  openaiEnv,
  type SnippetInput,
} from './snippets.js';

export interface BannerInput {
  readonly url: string;
  readonly config: Config;
  readonly source: ConfigSource;
  readonly chalk: ChalkInstance;
  readonly version: string;
  /** The inspector's one-time link, when it is on. */
  readonly inspectorUrl?: string;
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

export function formatBanner({ url, config, source, chalk: c, version, inspectorUrl }: BannerInput): string {
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
    const whileDown = config.state.onRedisDown.limits === 'open' ? "this gateway's own while it is down" : 'refused while it is down';
    lines.push(`${label('shared')}limits, wrong keys and cool-downs in Redis at ${printable(shownRedisUrl(config.state.redis))} ${c.gray(`(limits ${whileDown})`)}`);
  }

  if (inspectorUrl) {
    lines.push(`${label('inspector')}${c.underline(inspectorUrl)} ${c.gray('(works once: it signs this browser in with a cookie)')}`);
  }

  const key = source.generatedKey ?? '<your-key>';
  if (source.generatedKey) {
    lines.push(`${label('key')}${c.bold.yellow(source.generatedKey)} ${c.gray('(generated for this run; set MODEL_GATEWAY_KEY to keep one)')}`);
  }

  const claudeModel = claudeModelFor(config);
  const snippet: SnippetInput = { url, key: { text: key }, claudeModel, codexModel: codexModelFor(config), geminiModel: geminiModelFor(config) };
  // One line per client: only the variables it cannot do without (`model-gateway env` prints the full set).
  const claudeVars = claudeCodeEnv(snippet).filter((e) => ['ANTHROPIC_BASE_URL', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_MODEL'].includes(e.name));
  const hint = (name: string, text: string) => `  ${c.cyan(name.padEnd(14))}${text}`;
  lines.push('', `${c.bold('Point your clients at it:')} ${c.gray('(`model-gateway env <client>` prints these ready to paste)')}`);
  lines.push(hint('Claude Code', `${inlineEnv(claudeVars)} claude`));
  lines.push(hint('Codex', `${inlineEnv([{ name: CODEX_ENV_KEY, value: snippet.key }])} codex, with this in ~/.codex/config.toml:`));
  for (const toml of codexToml(snippet).filter((l) => l !== '')) {
    lines.push(`${' '.repeat(18)}${c.gray(toml)}`);
  }
  lines.push(hint('Gemini CLI', `${inlineEnv(geminiCliEnv(snippet))} gemini, with this in ~/.gemini/settings.json:`));
  lines.push(`${' '.repeat(18)}${c.gray(geminiCliSettings().map((l) => l.trim()).join(' '))}`);
  lines.push(hint('OpenAI SDK', inlineEnv(openaiEnv(snippet))));
  lines.push(hint('Anthropic SDK', inlineEnv(anthropicEnv(snippet))));
  lines.push('', c.gray('Ctrl-C stops it. Requests are logged below.'), '');
  return `${lines.join('\n')}\n`;
}
