/**
 * `model-gateway init`: writes a starter `gateway.config.json` from what this machine has
 * (provider keys in the environment, local model servers on their usual ports), with one
 * key group and a fresh key, validates it with the real parser, and says what to do next.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateKey, hashKey } from '../../config/keys.js';
import { MODULE_NAME, SEARCH_PLACES } from '../../config/load.js';
import { globProblem, isGlob } from '../../config/glob.js';
import { parseConfig } from '../../config/parse.js';
import type { WrittenConfig } from '../../config/schema.js';
import { ExitError } from '../../errors.js';
import { printable } from '../../log/terminal-text.js';
import { chalkFor } from '../colour.js';
import { cloudAccountsIn, cloudProvidersIn, findLocalServers, LOCAL_SERVERS, type CloudProviderId, type FoundServer, type LocalServer } from '../detect.js';
import type { CliIo } from '../io.js';
import { schemaRef } from '../schema-ref.js';
import { GATEWAY_KEY_VAR, shellQuote } from '../snippets.js';
import { startSpinner } from '../spinner.js';

export const CONFIG_FILE = 'gateway.config.json';
/** How long each local server gets to answer: they are on loopback, so anything slower is not there. */
const LOCAL_TIMEOUT_MS = 500;

export interface InitFlags {
  force?: boolean;
  dir?: string;
  hash?: boolean;
  color: boolean;
}

export interface InitDeps {
  /** The local servers to look for (tests point them at fake servers). */
  readonly localServers?: readonly LocalServer[];
  readonly newKey?: () => string;
  /** Whether a credentials file exists (tests give their own). */
  readonly exists?: (path: string) => boolean;
}

type Providers = NonNullable<WrittenConfig['providers']>;
type Models = NonNullable<WrittenConfig['models']>;

/** The vendors' model-name families; exact local names take precedence over these globs. */
const CLOUD = {
  openai: { provider: { type: 'openai', apiKey: '${OPENAI_API_KEY}' }, models: ['gpt-*', 'o*'] },
  anthropic: { provider: { type: 'anthropic', apiKey: '${ANTHROPIC_API_KEY}' }, models: ['claude-*'] },
  // OpenRouter names every model vendor/model.
  openrouter: {
    provider: { type: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1', apiKey: '${OPENROUTER_API_KEY}' },
    models: ['*/*'],
  },
} as const satisfies Record<CloudProviderId, { provider: Providers[string]; models: readonly string[] }>;

/**
 * Local models as exact entries. A name two servers share goes to the first; the second
 * gets `<server>/<name>`. Names the config cannot hold (whitespace, glob characters) are skipped.
 */
function addLocalModels(found: readonly FoundServer[], providers: Providers, models: Models): string[] {
  const skipped: string[] = [];
  for (const { server, models: names } of found) {
    const [host, port] = new URL(server.baseUrl).host.split(':');
    providers[server.id] = { type: 'openai-compatible', baseUrl: server.baseUrl };
    for (const name of names) {
      const entry = {
        provider: server.id,
        description: `${server.label} on ${host}:${port}`,
        // Most local models neither reason nor see; a translated request then goes without reasoning instead of failing.
        features: ['tools', 'streaming'],
      } satisfies Models[string];
      const prefixed = `${server.id}/${name}`;
      if (globProblem(name) !== undefined || isGlob(name)) skipped.push(`${server.label} model "${printable(name)}"`);
      else if (!Object.hasOwn(models, name)) models[name] = entry;
      else if (!Object.hasOwn(models, prefixed)) models[prefixed] = { ...entry, upstreamModel: name };
    }
  }
  return skipped;
}

/** A config file `serve` would find before ours (cosmiconfig's places come first), or undefined. */
function shadowingConfig(dir: string): string | undefined {
  for (const place of SEARCH_PLACES) {
    if (place === CONFIG_FILE) return undefined;
    const file = path.join(dir, place);
    if (!existsSync(file)) continue;
    if (place !== 'package.json') return file;
    try {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      if (pkg[MODULE_NAME] !== undefined) return `${file} ("${MODULE_NAME}" field)`;
    } catch {
      // An unreadable package.json holds no config for us.
    }
  }
  return undefined;
}

export async function init(flags: InitFlags, io: CliIo, deps: InitDeps = {}): Promise<void> {
  const c = chalkFor(io.stdout, io.env, flags.color);
  const cErr = chalkFor(io.stderr, io.env, flags.color);
  const dir = path.resolve(io.cwd, flags.dir ?? '.');
  const file = path.join(dir, CONFIG_FILE);
  if (existsSync(file) && !flags.force) {
    throw new ExitError(`${file} already exists; not overwriting it. Use --force to replace it.`, 1);
  }

  const providers: Providers = {};
  const models: Models = {};
  const cloud = cloudProvidersIn(io.env);
  for (const p of cloud) {
    providers[p.id] = CLOUD[p.id as CloudProviderId].provider;
    for (const m of CLOUD[p.id as CloudProviderId].models) models[m] = { provider: p.id };
  }
  const accounts = cloudAccountsIn(io.env, deps.exists);
  for (const a of accounts) {
    providers[a.id] = a.provider as Providers[string];
    for (const m of a.models) models[m] = { provider: a.id };
  }

  const servers = deps.localServers ?? LOCAL_SERVERS;
  const spinner = startSpinner(io, cErr, `Looking for local model servers (${servers.map((s) => s.label).join(', ')})…`);
  const found = await findLocalServers(servers, LOCAL_TIMEOUT_MS);
  if (found.length === 0) spinner.warn('No local model server answered.');
  else spinner.succeed(`Found ${found.map((f) => `${f.server.label} (${f.models.length} model${f.models.length === 1 ? '' : 's'})`).join(', ')}.`);
  const skipped = addLocalModels(found, providers, models);

  // Always there: it needs no network, so the first request can be made before any provider works.
  providers.echo = { type: 'echo' };
  if (!Object.hasOwn(models, 'echo')) models.echo = { provider: 'echo', description: 'Built in: answers with your last message' };

  // An already exported key is kept: the file refers to it, and the user's clients already use it.
  const existingKey = io.env[GATEWAY_KEY_VAR];
  const reuse = !flags.hash && existingKey !== undefined && existingKey !== '';
  const key = reuse ? existingKey : (deps.newKey ?? generateKey)();
  const $schema = schemaRef(dir);
  const written: WrittenConfig = {
    ...($schema !== undefined ? { $schema } : {}),
    server: { host: '127.0.0.1', port: 8787 },
    providers,
    models,
    keyGroups: { dev: { keys: [flags.hash ? `sha256:${hashKey(key)}` : `\${${GATEWAY_KEY_VAR}}`], models: ['*'] } },
  };
  // Whatever we write must load: check it with the real parser before it touches the disk.
  parseConfig(written, { env: { ...io.env, [GATEWAY_KEY_VAR]: key }, source: file });

  mkdirSync(dir, { recursive: true });
  try {
    // `wx` fails if the file appeared since the check above, so nothing is overwritten by a race either.
    writeFileSync(file, `${JSON.stringify(written, null, 2)}\n`, { flag: flags.force ? 'w' : 'wx' });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EEXIST') throw new ExitError(`${file} already exists; not overwriting it. Use --force to replace it.`, 1);
    throw new ExitError(`Cannot write ${file}: ${(err as Error).message}`, 1);
  }

  const out: string[] = [];
  const label = (s: string) => c.bold(s.padEnd(11));
  const byProvider = (id: string) => Object.keys(models).filter((m) => models[m]?.provider === id);
  // Model names came from the local servers' answers: printed escaped.
  out.push(`${c.green('Wrote')} ${printable(file)}`);
  out.push(
    `  ${label('providers')}${Object.keys(providers)
      .map((id) => {
        const env = cloud.find((p) => p.id === id)?.envVar;
        const account = accounts.find((a) => a.id === id);
        const server = found.find((f) => f.server.id === id)?.server;
        if (env) return `${id} (key from $${env})`;
        if (account) return `${id} (${account.label}, credentials from ${printable(account.source)})`;
        return server ? `${id} (${server.label}, ${server.baseUrl})` : id;
      })
      .join(', ')}`,
  );
  const modelList = Object.keys(providers)
    .map((id) => byProvider(id))
    .filter((list) => list.length > 0)
    .map((list) => printable(`${list.join(', ')} → ${models[list[0]!]!.provider}`));
  out.push(`  ${label('models')}${modelList.join(c.gray(' · '))}`);
  out.push(
    `  ${label('key group')}dev: every model; its key ${flags.hash ? 'is stored as a sha256: digest' : `comes from $${GATEWAY_KEY_VAR}`}`,
  );
  out.push(`  ${label('$schema')}${$schema ?? c.gray('none (this copy of model-gateway ships no schema file)')}`);
  for (const a of accounts) if (a.note) out.push(c.yellow(`  ${a.note}`));
  for (const s of skipped) out.push(c.yellow(`  skipped ${s}: not a usable model name (whitespace or * ? [ ] { })`));
  for (const f of found.filter((s) => s.models.length === 0)) {
    out.push(c.yellow(`  ${f.server.label} has no models yet; add entries under "models" once it has some`));
  }
  const shadow = shadowingConfig(dir);
  if (shadow) out.push(c.yellow(`  note: ${printable(shadow)} is found before ${CONFIG_FILE}; serve will use that one until you remove it`));

  out.push('');
  if (reuse) {
    out.push(`The key group uses the key already in $${GATEWAY_KEY_VAR}.`);
  } else {
    out.push(
      flags.hash
        ? `Your gateway key (shown once: the file keeps only its digest):`
        : `Your gateway key (not stored in the file, which refers to $${GATEWAY_KEY_VAR}; keep it):`,
    );
    out.push(`  ${c.bold.yellow(key)}`);
    out.push(`Set it in the shell${flags.hash ? ' that runs the clients' : ' that runs the gateway and the clients'}:`);
    out.push(`  export ${GATEWAY_KEY_VAR}=${shellQuote(key)}`);
    // Nothing keeps the key for a new shell: say how, and what to do once it is lost.
    out.push(
      c.gray(
        `A new shell needs it again: add that line to your shell's startup file (~/.bashrc, ~/.zshrc). Lost it? ` +
          `\`npx model-gateway keys new\` prints another, with the line that adds it to the key group.`,
      ),
    );
  }

  const configFlag = dir === path.resolve(io.cwd) ? '' : ` --config ${shellQuote(path.relative(io.cwd, file) || file)}`;
  const next = [
    [`npx model-gateway check${configFlag}`, 'what the config does; add --probe to try every provider'],
    [`npx model-gateway serve${configFlag}`, 'start the gateway'],
    [`npx model-gateway claude${configFlag}`, 'Claude Code on it, the gateway started in the background (also: codex, gemini)'],
    [`npx model-gateway env claude-code${configFlag}`, 'the lines that point Claude Code at it (also: codex, openai, anthropic, shell)'],
  ] as const;
  const width = Math.max(...next.map(([cmd]) => cmd.length));
  out.push('', c.bold('Next:'));
  for (const [cmd, why] of next) out.push(`  ${c.cyan(cmd.padEnd(width))}  ${c.gray(`# ${why}`)}`);
  io.stdout.write(`${out.join('\n')}\n`);
}
