/**
 * The start-up banner: where the gateway listens, what it serves (secrets
 * masked), and ready-to-paste lines for Claude Code, Codex and the two SDKs.
 */
import type { ChalkInstance } from 'chalk';
import type { Config, ConfigSource, ProviderConfig } from '../config/types.js';
import { findModel } from '../routing/resolve-model.js';

export interface BannerInput {
  readonly url: string;
  readonly config: Config;
  readonly source: ConfigSource;
  readonly chalk: ChalkInstance;
  readonly version: string;
}

/** A provider credential as the banner may show it: set or not, and its last four characters at most. */
export function maskSecret(secret: string | undefined): string {
  if (!secret) return 'no key';
  return secret.length >= 16 ? `key …${secret.slice(-4)}` : 'key set';
}

function providerLine(p: ProviderConfig): string {
  if (p.type === 'echo') return `${p.id} (echo, built in)`;
  return `${p.id} (${p.type}, ${p.baseUrl}, ${maskSecret(p.apiKey)})`;
}

/** A model name the hint lines can use when the client's own default would not resolve. */
function exampleModel(config: Config): string | undefined {
  return config.models.keys().next().value;
}

export function formatBanner({ url, config, source, chalk: c, version }: BannerInput): string {
  const label = (s: string) => c.bold(s.padEnd(10));
  const lines: string[] = [];
  lines.push(`${c.bold.green('model-gateway')} ${version} listening on ${c.bold.underline(url)}`);
  lines.push(`${label('config')}${source.description}`);
  lines.push(`${label('providers')}${[...config.providers.values()].map(providerLine).join(c.gray(' · '))}`);
  const models = [...config.models.values(), ...config.modelGlobs].map(
    (m) => `${m.pattern} → ${m.provider}${m.upstreamModel ? `/${m.upstreamModel}` : ''}`,
  );
  lines.push(`${label('models')}${models.join(c.gray(' · ')) || c.yellow('none')}`);
  const groups = [...config.keyGroups.values()].map(
    (g) => `${g.name} (${g.keys.length} key${g.keys.length === 1 ? '' : 's'}: ${g.keys.map((k) => k.name ?? k.id).join(', ')}; models ${g.models.join(', ')})`,
  );
  lines.push(`${label('groups')}${groups.join(c.gray(' · ')) || c.yellow('none: every request will be refused')}`);

  const key = source.generatedKey ?? '<your-key>';
  if (source.generatedKey) {
    lines.push(`${label('key')}${c.bold.yellow(source.generatedKey)} ${c.gray('(generated for this run; set MODEL_GATEWAY_KEY to keep one)')}`);
  }

  const example = exampleModel(config);
  const claudeModel = example && !findModel(config, 'claude-sonnet-4-5') ? ` ANTHROPIC_MODEL=${example}` : '';
  const codexModel = example && !findModel(config, 'gpt-5-codex') ? example : 'gpt-5-codex';
  const hint = (name: string, text: string) => `  ${c.cyan(name.padEnd(14))}${text}`;
  lines.push('', c.bold('Point your clients at it:'));
  lines.push(hint('Claude Code', `ANTHROPIC_BASE_URL=${url} ANTHROPIC_AUTH_TOKEN=${key}${claudeModel} claude`));
  lines.push(hint('Codex', `MODEL_GATEWAY_API_KEY=${key} codex, with this in ~/.codex/config.toml:`));
  for (const toml of [
    `model = "${codexModel}"`,
    'model_provider = "model-gateway"',
    '[model_providers.model-gateway]',
    'name = "model-gateway"',
    `base_url = "${url}/v1"`,
    'env_key = "MODEL_GATEWAY_API_KEY"',
    'wire_api = "responses"',
  ]) {
    lines.push(`${' '.repeat(18)}${c.gray(toml)}`);
  }
  lines.push(hint('OpenAI SDK', `OPENAI_BASE_URL=${url}/v1 OPENAI_API_KEY=${key}`));
  lines.push(hint('Anthropic SDK', `ANTHROPIC_BASE_URL=${url} ANTHROPIC_API_KEY=${key}`));
  lines.push('', c.gray('Ctrl-C stops it. Requests are logged below.'), '');
  return `${lines.join('\n')}\n`;
}
