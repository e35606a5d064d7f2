/**
 * What `init` can find without being told: provider keys in the environment and local
 * model servers answering on their usual loopback ports. Each server gets one short
 * GET; a closed port or a slow answer just means "not running".
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import type { Env } from '../config/env.js';

export interface CloudProvider {
  /** Provider id in the written config. */
  readonly id: string;
  readonly envVar: string;
  readonly label: string;
}

/** Cloud providers recognised by their usual API key variable. Their models are the vendors' name families. */
export const CLOUD_PROVIDERS = [
  { id: 'openai', envVar: 'OPENAI_API_KEY', label: 'OpenAI' },
  { id: 'anthropic', envVar: 'ANTHROPIC_API_KEY', label: 'Anthropic' },
  { id: 'openrouter', envVar: 'OPENROUTER_API_KEY', label: 'OpenRouter' },
] as const satisfies readonly CloudProvider[];

export type CloudProviderId = (typeof CLOUD_PROVIDERS)[number]['id'];

/** A cloud account the gateway can reach with credentials found in the environment, written as a provider of its kind. */
export interface CloudAccount {
  /** Provider id in the written config. */
  readonly id: 'bedrock' | 'vertex';
  readonly label: string;
  /** Where the credentials were found, for the summary ("$AWS_PROFILE", "~/.aws/credentials"). */
  readonly source: string;
  /** The provider entry to write. */
  readonly provider: Readonly<Record<string, unknown>>;
  /** A model pattern matching the cloud's own names for Claude models, which clients send as they are. */
  readonly models: readonly string[];
  /** What the user should know about the entry (a region chosen for them). */
  readonly note?: string;
}

/**
 * AWS and Google credentials, found as their own tools find them: the variables their credential
 * chains read, then their files under the home folder. Bedrock names Claude `[us.|eu.|global.]anthropic.claude-…`
 * and Vertex `claude-…@date`, so each gets the pattern of its own names.
 */
export function cloudAccountsIn(env: Env, exists: (path: string) => boolean = existsSync): CloudAccount[] {
  const home = env.HOME ?? env.USERPROFILE;
  const file = (...parts: string[]) => (home === undefined || home === '' ? undefined : join(home, ...parts));
  const found = (vars: readonly string[], files: readonly (string | undefined)[]): string | undefined => {
    const v = vars.find((name) => isSet(env[name]));
    if (v !== undefined) return `$${v}`;
    const f = files.find((path): path is string => path !== undefined && path !== '' && exists(path));
    return f !== undefined && home !== undefined && home !== '' && f.startsWith(home) ? `~${f.slice(home.length)}` : f;
  };
  const out: CloudAccount[] = [];

  const bedrockKey = isSet(env.AWS_BEARER_TOKEN_BEDROCK);
  const aws = found(
    ['AWS_BEARER_TOKEN_BEDROCK', 'AWS_ACCESS_KEY_ID', 'AWS_PROFILE', 'AWS_WEB_IDENTITY_TOKEN_FILE', 'AWS_CONTAINER_CREDENTIALS_FULL_URI', 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI'],
    [env.AWS_SHARED_CREDENTIALS_FILE, file('.aws', 'credentials'), env.AWS_CONFIG_FILE, file('.aws', 'config')],
  );
  if (aws !== undefined) {
    const region = isSet(env.AWS_REGION) || isSet(env.AWS_DEFAULT_REGION);
    out.push({
      id: 'bedrock',
      label: 'Amazon Bedrock',
      source: aws,
      // Without a region in the environment the config names one; with one, the kind reads it when the config loads.
      provider: { type: 'bedrock', ...(region ? {} : { region: 'us-east-1' }), ...(bedrockKey ? { apiKey: '${AWS_BEARER_TOKEN_BEDROCK}' } : {}) },
      models: ['*anthropic.claude-*'],
      ...(region ? {} : { note: 'no AWS_REGION set: bedrock uses us-east-1; change "region" if your models are elsewhere' }),
    });
  }

  const google = found(['GOOGLE_APPLICATION_CREDENTIALS'], [file('.config', 'gcloud', 'application_default_credentials.json')]);
  if (google !== undefined) {
    const projectVar = ['ANTHROPIC_VERTEX_PROJECT_ID', 'GOOGLE_CLOUD_PROJECT', 'GCLOUD_PROJECT'].find((v) => isSet(env[v]));
    out.push({
      id: 'vertex',
      label: 'Google Vertex AI',
      source: google,
      provider: {
        type: 'vertex',
        region: isSet(env.CLOUD_ML_REGION) ? '${CLOUD_ML_REGION}' : 'global',
        ...(projectVar !== undefined ? { project: `\${${projectVar}}` } : {}),
      },
      models: ['claude-*@*'],
      ...(projectVar === undefined ? { note: "vertex takes its project from the credentials; set \"project\" if that is not the one" } : {}),
    });
  }
  return out;
}

export interface LocalServer {
  readonly id: string;
  readonly label: string;
  /** The OpenAI-compatible base URL the gateway will use, with /v1. */
  readonly baseUrl: string;
  /** Where to ask for the model list, in order; the first that answers wins. */
  readonly listUrls: readonly string[];
}

export const LOCAL_SERVERS = [
  {
    id: 'ollama',
    label: 'Ollama',
    baseUrl: 'http://127.0.0.1:11434/v1',
    // /api/tags is Ollama's own list (every version has it); /v1/models is its OpenAI-compatible one.
    listUrls: ['http://127.0.0.1:11434/api/tags', 'http://127.0.0.1:11434/v1/models'],
  },
  { id: 'lmstudio', label: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1', listUrls: ['http://127.0.0.1:1234/v1/models'] },
  { id: 'vllm', label: 'vLLM', baseUrl: 'http://127.0.0.1:8000/v1', listUrls: ['http://127.0.0.1:8000/v1/models'] },
] as const satisfies readonly LocalServer[];

export interface FoundServer {
  readonly server: LocalServer;
  readonly models: readonly string[];
}

const isSet = (value: string | undefined): boolean => value !== undefined && value !== '';

/** The cloud providers whose key variable is set (and not empty) in `env`. */
export function cloudProvidersIn(env: Env): CloudProvider[] {
  return CLOUD_PROVIDERS.filter((p) => isSet(env[p.envVar]));
}

/** Model ids from either list shape: Ollama's `{models:[{name}]}` or OpenAI's `{data:[{id}]}`. */
export function modelIds(json: unknown): string[] | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const body = json as { models?: unknown; data?: unknown };
  const list = Array.isArray(body.models) ? body.models : Array.isArray(body.data) ? body.data : undefined;
  if (!list) return undefined;
  const ids = list.map((m: unknown) => {
    const entry = (typeof m === 'object' && m !== null ? m : {}) as { name?: unknown; model?: unknown; id?: unknown };
    const id = entry.id ?? entry.name ?? entry.model;
    return typeof id === 'string' ? id : undefined;
  });
  return [...new Set(ids.filter((id): id is string => id !== undefined && id !== ''))];
}

async function getJson(url: string, timeoutMs: number): Promise<unknown> {
  const res = await request(url, {
    method: 'GET',
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(timeoutMs),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  if (res.statusCode !== 200) {
    await res.body.dump();
    return undefined;
  }
  return res.body.json();
}

/** Asks one server for its models; undefined when nothing usable answers within `timeoutMs`. */
export async function probeLocalServer(server: LocalServer, timeoutMs: number): Promise<FoundServer | undefined> {
  for (const url of server.listUrls) {
    try {
      const models = modelIds(await getJson(url, timeoutMs));
      if (models) return { server, models };
    } catch {
      // Not running, not answering in time, or not JSON: try the next URL.
    }
  }
  return undefined;
}

/** Every known local server at once, so the slowest bounds the wait. */
export async function findLocalServers(servers: readonly LocalServer[], timeoutMs: number): Promise<FoundServer[]> {
  const found = await Promise.all(servers.map((s) => probeLocalServer(s, timeoutMs)));
  return found.filter((f): f is FoundServer => f !== undefined);
}
