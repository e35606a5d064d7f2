/**
 * `model-gateway env <client>`: exactly what to paste to point a client at the gateway.
 * Only paste-able text goes to stdout (export lines, Codex's config.toml, the Gemini CLI's
 * settings.json, `#` comments),
 * so `eval "$(model-gateway env shell)"` works; notes go to stderr. Without --key the
 * lines refer to $MODEL_GATEWAY_KEY instead of holding the secret.
 */
import { hashKey } from '../../config/keys.js';
import { loadConfig } from '../../config/load.js';
import type { Config, KeyGroupConfig } from '../../config/types.js';
import { ExitError } from '../../errors.js';
import { groupAllowsModel } from '../../auth/authorize.js';
import { printable } from '../../log/terminal-text.js';
import { findModel } from '../../routing/resolve-model.js';
import type { CliIo } from '../io.js';
import { gatewayUrlFlag } from '../url-flag.js';
import {
  claudeModelFor,
  clientSnippet,
  clientUrl,
  CODEX_ENV_KEY,
  codexModelFor,
  exportLines,
  GEMINI_CLI_MODEL,
  geminiModelFor,
  GATEWAY_KEY_VAR,
  type ClientName,
  type EnvValue,
} from '../snippets.js';

export interface EnvFlags {
  key?: string;
  model?: string;
  config?: string;
  url?: string;
}

/**
 * --key and --model must make sense for the config: a wrong one would only fail later, inside the
 * client. The key's group, when --key is given.
 */
function checkAgainst(config: Config, where: string, key: string | undefined, model: string | undefined): KeyGroupConfig | undefined {
  const group = key === undefined ? undefined : config.keyGroups.get(config.keys.get(hashKey(key))?.group ?? '');
  if (key !== undefined && group === undefined) {
    throw new ExitError(`--key: this key (id ${hashKey(key).slice(0, 8)}) is not in any key group of ${where}.`, 1);
  }
  if (model === undefined) return group;
  if (!findModel(config, model)) throw new ExitError(`--model: "${model}" is not a model of ${where} (see npx model-gateway check).`, 1);
  if (group && !groupAllowsModel(group, model)) throw new ExitError(`--model: key group "${group.name}" may not call "${model}".`, 1);
  return group;
}

const headers = {
  'claude-code': (url: string) => `# Claude Code → model-gateway at ${url}: run these in the shell that starts \`claude\``,
  codex: (_url: string) => '# Codex: put this in ~/.codex/config.toml (or $CODEX_HOME/config.toml); model and model_provider go before any [table]',
  'gemini-cli': (url: string) => `# Gemini CLI → model-gateway at ${url}: put this in ~/.gemini/settings.json (merged into what it holds)`,
  openai: (url: string) => `# OpenAI SDKs (any language) → model-gateway at ${url}`,
  anthropic: (url: string) => `# Anthropic SDKs (any language) → model-gateway at ${url}`,
  shell: (url: string) => `# model-gateway at ${url}: Claude Code, the OpenAI and Anthropic SDKs, and Codex (its config.toml: npx model-gateway env codex)`,
} as const satisfies Record<ClientName, (url: string) => string>;

export async function env(client: ClientName, flags: EnvFlags, io: CliIo): Promise<void> {
  // With --url the gateway may run elsewhere, on another config; read one only when asked to.
  let config: Config | undefined;
  let group: KeyGroupConfig | undefined;
  let where = '';
  if (flags.url === undefined || flags.config !== undefined) {
    const loaded = await loadConfig({ ...(flags.config !== undefined ? { configPath: flags.config } : {}), cwd: io.cwd, env: io.env });
    config = loaded.config;
    where = loaded.source.description;
    // The built-in default's key is made per run (or $MODEL_GATEWAY_KEY): a key given cannot be checked against it.
    const builtIn = loaded.source.filepath === undefined;
    group = checkAgainst(config, where, builtIn ? undefined : flags.key, flags.model);
    if (builtIn && flags.key !== undefined) {
      io.stderr.write(`No config file here: the key is not checked. A gateway on the built-in default takes $${GATEWAY_KEY_VAR}, or the key its banner printed.\n`);
    }
  }
  let url: string;
  if (flags.url !== undefined) url = gatewayUrlFlag(flags.url);
  else if (config!.server.port === 0) {
    throw new ExitError('server.port is 0, so the port is only known once serve starts: pass --url with the URL its banner shows.', 1);
  } else url = clientUrl(config!.server);

  const key: EnvValue = flags.key !== undefined ? { text: flags.key } : { ref: GATEWAY_KEY_VAR };
  const claudeModel = config ? claudeModelFor(config, flags.model) : flags.model;
  const codexModel = config ? codexModelFor(config, flags.model) : (flags.model ?? 'gpt-5-codex');
  const geminiModel = config ? geminiModelFor(config, flags.model, group) : (flags.model ?? GEMINI_CLI_MODEL);
  const snippet = clientSnippet(client, { url, key, claudeModel, codexModel, geminiModel });

  const lines: string[] = [headers[client](printable(url))];
  if ((client === 'claude-code' || client === 'shell') && claudeModel !== undefined && flags.model === undefined) {
    lines.push(`# The config does not route Claude's own model names, so every model variable names "${printable(claudeModel)}" (pick another with --model).`);
  }
  if (client === 'gemini-cli' && flags.model === undefined) {
    lines.push(`# GEMINI_MODEL names "${printable(geminiModel)}": on its default (auto) the CLI picks models by Google's names (pick another with --model).`);
  }
  if (snippet.toml) {
    lines.push(...snippet.toml, '', `# and start codex where ${CODEX_ENV_KEY} holds the gateway key:`);
  }
  if (snippet.settings) {
    lines.push(...snippet.settings, '', '# and run these in the shell that starts `gemini`:');
  }
  lines.push(...exportLines(snippet.env));
  io.stdout.write(`${lines.join('\n')}\n`);

  if (flags.key === undefined) {
    const set = io.env[GATEWAY_KEY_VAR] !== undefined && io.env[GATEWAY_KEY_VAR] !== '';
    io.stderr.write(
      set
        ? `These lines refer to $${GATEWAY_KEY_VAR} (set in this shell) rather than holding the key.\n`
        : `Note: $${GATEWAY_KEY_VAR} is not set in this shell; set it to your gateway key (npx model-gateway init prints one) or pass --key.\n`,
    );
  }
}
