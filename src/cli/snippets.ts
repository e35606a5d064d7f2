/**
 * What each client needs to reach the gateway: environment variables and, for Codex,
 * a config.toml provider block. One source for `model-gateway env` (export lines to
 * paste) and the `serve` banner (one-line hints).
 * @see README.md, "Pointing clients at the gateway"
 */
import { groupAllowsModel } from '../auth/authorize.js';
import type { Config, KeyGroupConfig, ServerConfig } from '../config/types.js';
import { shellQuote } from '../inspector/common/shell.js';
import { printableJson } from '../log/terminal-text.js';
import { findModel } from '../routing/resolve-model.js';

// Values from the config and the command line go into shell text through the one quoting module.
export { shellQuote };

export const CLIENTS = ['claude-code', 'codex', 'gemini-cli', 'openai', 'anthropic', 'shell'] as const;
export type ClientName = (typeof CLIENTS)[number];

/** The variable Codex reads the key from (`env_key`); its own OPENAI_API_KEY is left alone. */
export const CODEX_ENV_KEY = 'MODEL_GATEWAY_API_KEY';
/** The variable `init` tells users to set, and the snippets refer to when no key is given. */
export const GATEWAY_KEY_VAR = 'MODEL_GATEWAY_KEY';

/** A value is either text or a reference to another shell variable (`"$NAME"`). */
export type EnvValue = { readonly text: string } | { readonly ref: string };

export interface EnvVar {
  readonly name: string;
  readonly value: EnvValue;
}

export interface SnippetInput {
  /** The gateway's base URL without `/v1` and without a trailing slash. */
  readonly url: string;
  readonly key: EnvValue;
  /** Set: Claude Code's model variables all name this model. */
  readonly claudeModel?: string | undefined;
  /** The `model` line of Codex's config.toml. */
  readonly codexModel: string;
  /** Set: the Gemini CLI asks for this model (`GEMINI_MODEL`; `geminiModelFor` always names one). */
  readonly geminiModel?: string | undefined;
}

export interface Snippet {
  readonly env: readonly EnvVar[];
  /** Codex only: the config.toml lines. */
  readonly toml?: readonly string[];
  /** The Gemini CLI only: its settings.json lines. */
  readonly settings?: readonly string[];
}

const text = (t: string): EnvValue => ({ text: t });
const v = (name: string, value: EnvValue): EnvVar => ({ name, value });

/** Claude Code's model variables: the main model, the background one, and the picker's three families. */
export const CLAUDE_MODEL_VARS = [
  'ANTHROPIC_MODEL',
  'ANTHROPIC_SMALL_FAST_MODEL',
  'ANTHROPIC_DEFAULT_OPUS_MODEL',
  'ANTHROPIC_DEFAULT_SONNET_MODEL',
  'ANTHROPIC_DEFAULT_HAIKU_MODEL',
] as const;

export function claudeCodeEnv(input: SnippetInput): EnvVar[] {
  return [
    // No /v1: Claude Code appends /v1/messages itself.
    v('ANTHROPIC_BASE_URL', text(input.url)),
    // Sent as `Authorization: Bearer`; the gateway takes that or x-api-key (ANTHROPIC_API_KEY) alike.
    v('ANTHROPIC_AUTH_TOKEN', input.key),
    ...(input.claudeModel === undefined ? [] : CLAUDE_MODEL_VARS.map((name) => v(name, text(input.claudeModel!)))),
    // Otherwise Claude Code keeps trying to reach Anthropic directly (telemetry, warm-up).
    v('DISABLE_TELEMETRY', text('1')),
    v('CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC', text('1')),
  ];
}

/**
 * Codex reads only its config.toml (OPENAI_BASE_URL is ignored) and speaks only the Responses API
 * (docs/clients.md, "Codex").
 */
export function codexToml(input: SnippetInput): string[] {
  // A TOML basic string takes JSON's escapes; printableJson adds the \uHHHH ones that keep the line safe to print.
  const q = (s: string) => printableJson(s);
  return [
    `model = ${q(input.codexModel)}`,
    'model_provider = "model-gateway"',
    '',
    '[model_providers.model-gateway]',
    'name = "model-gateway"',
    `base_url = ${q(`${input.url}/v1`)}`,
    `env_key = "${CODEX_ENV_KEY}"`,
    'wire_api = "responses"',
  ];
}

/**
 * The Gemini CLI: the Google SDK's base URL (no version: the SDK adds `/v1beta`), the key it sends
 * as `x-goog-api-key`, and the model (see `geminiModelFor`).
 */
export const geminiCliEnv = (input: SnippetInput): EnvVar[] => [
  v('GOOGLE_GEMINI_BASE_URL', text(input.url)),
  v('GEMINI_API_KEY', input.key),
  ...(input.geminiModel === undefined ? [] : [v('GEMINI_MODEL', text(input.geminiModel))]),
];

/**
 * The Gemini CLI's settings.json (~/.gemini/settings.json): without an auth type chosen there it
 * asks interactively, or refuses to start non-interactively; `gemini-api-key` makes it use GEMINI_API_KEY.
 * Its usage statistics go to Google whatever its base URL, unless `privacy.usageStatisticsEnabled` is off.
 */
export function geminiCliSettings(): string[] {
  // Constant text: nothing from the config or the command line goes into these lines.
  return ['{', '  "security": { "auth": { "selectedType": "gemini-api-key" } },', '  "privacy": { "usageStatisticsEnabled": false }', '}'];
}

export const openaiEnv = (input: SnippetInput): EnvVar[] => [
  v('OPENAI_BASE_URL', text(`${input.url}/v1`)),
  v('OPENAI_API_KEY', input.key),
];

export const anthropicEnv = (input: SnippetInput): EnvVar[] => [
  v('ANTHROPIC_BASE_URL', text(input.url)),
  v('ANTHROPIC_API_KEY', input.key),
];

export function clientSnippet(client: ClientName, input: SnippetInput): Snippet {
  switch (client) {
    case 'claude-code':
      return { env: claudeCodeEnv(input) };
    case 'codex':
      return { env: [v(CODEX_ENV_KEY, input.key)], toml: codexToml(input) };
    case 'gemini-cli':
      return { env: geminiCliEnv(input), settings: geminiCliSettings() };
    case 'openai':
      return { env: openaiEnv(input) };
    case 'anthropic':
      return { env: anthropicEnv(input) };
    case 'shell':
      // ANTHROPIC_AUTH_TOKEN serves Claude Code and the Anthropic SDKs alike; adding ANTHROPIC_API_KEY
      // would make both warn that two credentials are set.
      return { env: [...claudeCodeEnv(input), ...openaiEnv(input), v(CODEX_ENV_KEY, input.key)] };
  }
}

function render(value: EnvValue): string {
  if ('ref' in value) return `"$${value.ref}"`;
  return shellQuote(value.text);
}

/** `export NAME=value` lines, quoted for a POSIX shell. */
export function exportLines(env: readonly EnvVar[]): string[] {
  return env.map((e) => `export ${e.name}=${render(e.value)}`);
}

/** `A=1 B=2` for a one-line command prefix, quoted as the export lines are (a plain value stays bare, for reading). */
export function inlineEnv(env: readonly EnvVar[]): string {
  return env.map((e) => `${e.name}=${render(e.value)}`).join(' ');
}

/**
 * The URL clients use for a server section: a wildcard listen address is reached on
 * loopback, an IPv6 literal goes in brackets.
 */
export function clientUrl(server: Pick<ServerConfig, 'host' | 'port'>): string {
  const host = server.host === '0.0.0.0' ? '127.0.0.1' : server.host === '::' ? '::1' : server.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${server.port}`;
}

/** The first exact model name: something the hints can name when the client's own default would not resolve. */
export function exampleModel(config: Config): string | undefined {
  return config.models.keys().next().value;
}

/** Claude Code asks for Claude names; when the config does not route them, map all its model variables to one that is. */
export function claudeModelFor(config: Config, requested?: string): string | undefined {
  if (requested !== undefined) return requested;
  const example = exampleModel(config);
  return example !== undefined && !findModel(config, 'claude-sonnet-4-5') ? example : undefined;
}

/** The Pro model the Gemini CLI's default (`auto`) answers with: GEMINI_MODEL when no configured model serves it. */
export const GEMINI_CLI_MODEL = 'gemini-3.1-pro-preview';

/**
 * The model the Gemini CLI should ask for, always named: its default (`auto`) first asks a Flash-Lite
 * model, by Google's name, to rate the prompt in JSON, then sends the prompt to a Pro model, which
 * works through the gateway only where both names route to models able to. The requested model, else
 * the first exact model served to Gemini callers (and that `group` may call) named `gemini-*`, else
 * the first such model, else the CLI's own Pro model.
 */
export function geminiModelFor(config: Config, requested?: string, group?: KeyGroupConfig): string {
  if (requested !== undefined) return requested;
  const served = [...config.models.entries()]
    .filter(([name, model]) => model.protocols.has('gemini') && (group === undefined || (group.protocols.has('gemini') && groupAllowsModel(group, name))))
    .map(([name]) => name);
  return served.find((name) => name.startsWith('gemini-')) ?? served[0] ?? GEMINI_CLI_MODEL;
}

/** Codex's config.toml always names a model: the requested one, Codex's own when it routes, else an exact one that does. */
export function codexModelFor(config: Config, requested?: string): string {
  if (requested !== undefined) return requested;
  const example = exampleModel(config);
  return example !== undefined && !findModel(config, 'gpt-5-codex') ? example : 'gpt-5-codex';
}
