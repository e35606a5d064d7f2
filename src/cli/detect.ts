/**
 * What `init` can find without being told: provider keys in the environment and local
 * model servers answering on their usual loopback ports. Each server gets one short
 * GET; a closed port or a slow answer just means "not running".
 */
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
