/**
 * Schema output → `Config`: each provider kind's defaults, keys reduced to digests, models split
 * into exact names and specificity-ordered globs. Assumes `rules.ts` found nothing.
 */
import type { ProviderKind } from '../providers/kind.js';
import { providerKind } from '../providers/kinds.js';
import { commonProviderFields } from './provider-fields.js';
import { compareSpecificity, isGlob } from './glob.js';
import { keyDigest, keyId } from './keys.js';
import type { ValidatedConfig } from './schema.js';
import type {
  Budget,
  Config,
  CredentialConfig,
  GatewayKey,
  KeyGroupConfig,
  MetricsConfig,
  ModelConfig,
  ProviderConfig,
  TracingConfig,
} from './types.js';

type WrittenProvider = ValidatedConfig['providers'][string];
type WrittenModel = ValidatedConfig['models'][string];
type WrittenKeyGroup = ValidatedConfig['keyGroups'][string];

export function normalizeConfig(written: ValidatedConfig): Config {
  const providers = new Map(Object.entries(written.providers).map(([id, p]) => [id, normalizeProvider(id, p)]));

  const models = new Map<string, ModelConfig>();
  const globs: ModelConfig[] = [];
  for (const [pattern, m] of Object.entries(written.models)) {
    const model = normalizeModel(pattern, m);
    if (model.isGlob) globs.push(model);
    else models.set(pattern, model);
  }
  // Stable sort: equally specific globs keep their order in the file.
  globs.sort((a, b) => compareSpecificity(a.pattern, b.pattern));

  const keyGroups = new Map<string, KeyGroupConfig>();
  const keys = new Map<string, GatewayKey>();
  for (const [name, g] of Object.entries(written.keyGroups)) {
    const group = normalizeKeyGroup(name, g);
    keyGroups.set(name, group);
    for (const key of group.keys) keys.set(key.digest, key);
  }

  // Host names match in any case: lowercased once here, the guard compares them as they are with each request's.
  const allowedHosts = written.server.allowedHosts.map((h) => h.toLowerCase());
  const server = { ...written.server, maxConnections: written.server.maxConnections, allowedHosts };
  const state = written.state && { ...written.state, onRedisDown: { ...written.state.onRedisDown } };
  return {
    server,
    inspector: written.inspector,
    providers,
    models,
    modelGlobs: globs,
    keyGroups,
    keys,
    metrics: normalizeMetrics(written.metrics),
    tracing: normalizeTracing(written.tracing),
    ...(state ? { state } : {}),
  };
}

function normalizeMetrics(m: ValidatedConfig['metrics']): MetricsConfig | undefined {
  if (!m?.enabled) return undefined;
  return { port: m.port, host: m.host, token: m.token, labels: m.labels };
}

function normalizeTracing(t: ValidatedConfig['tracing']): TracingConfig | undefined {
  if (!t) return undefined;
  return { otlpEndpoint: t.otlpEndpoint, protocol: t.protocol, headers: { ...t.headers }, captureContent: t.captureContent, sampleRatio: t.sampleRatio };
}

function normalizeProvider(id: string, p: WrittenProvider): ProviderConfig {
  const kind = providerKind(p.type);
  const written = p as Record<string, unknown>;
  const own = Object.fromEntries(Object.keys(kind.fields).filter((f) => !(f in commonProviderFields) && written[f] !== undefined).map((f) => [f, written[f]]));
  const credentials = (p.credentials ?? []).map((c) => normalizeCredential(kind, c));
  return {
    id,
    type: p.type,
    baseUrl: stripTrailingSlashes(kind.baseUrl(p as never) ?? ''),
    // A kind that takes no credential is given none, so nothing shows or logs one.
    apiKey: kind.describe.credential === undefined ? undefined : p.apiKey,
    headers: { ...p.headers },
    protocols: new Set(p.protocols ?? kind.protocols),
    timeouts: { ...p.timeouts },
    retries: p.retries,
    own,
    secrets: [...secretsOf(kind, own), ...credentials.flatMap((c) => [...(c.apiKey ? [c.apiKey] : []), ...secretsOf(kind, c.own)])],
    credentials,
  };
}

const secretsOf = (kind: ProviderKind, own: Readonly<Record<string, unknown>>): string[] =>
  (kind.secretFields ?? []).flatMap((f) => (typeof own[f] === 'string' && own[f] !== '' ? [own[f]] : []));

function normalizeCredential(kind: ProviderKind, c: NonNullable<WrittenProvider['credentials']>[number]): CredentialConfig {
  const written = c as Record<string, unknown>;
  const own = Object.fromEntries((kind.credentialFields ?? []).filter((f) => written[f] !== undefined).map((f) => [f, written[f]]));
  return {
    name: c.name,
    apiKey: c.apiKey,
    own,
    weight: c.weight,
    priority: c.priority,
    limits: {
      ...(c.limits.requestsPerMinute !== undefined ? { requestsPerMinute: c.limits.requestsPerMinute } : {}),
      ...(c.limits.tokensPerMinute !== undefined ? { tokensPerMinute: c.limits.tokensPerMinute } : {}),
    },
  };
}

function normalizeModel(pattern: string, m: WrittenModel): ModelConfig {
  return {
    pattern,
    isGlob: isGlob(pattern),
    provider: m.provider,
    upstreamModel: m.upstreamModel,
    protocols: new Set(m.protocols),
    features: new Set(m.features),
    description: m.description,
    maxOutputTokens: m.maxOutputTokens,
    displayName: m.displayName,
    contextWindow: m.contextWindow,
    countTokens: m.countTokens,
    ...(m.thinking !== undefined ? { thinking: m.thinking } : {}),
    fallbacks: [...new Set(m.fallbacks ?? [])],
    ...(m.price !== undefined ? { price: m.price } : {}),
  };
}

function normalizeKeyGroup(name: string, g: WrittenKeyGroup): KeyGroupConfig {
  const keys = g.keys.map((entry): GatewayKey => {
    const digest = keyDigest(typeof entry === 'string' ? entry : entry.key);
    if (typeof entry === 'string') return { digest, id: keyId(digest), name: undefined, group: name };
    return { digest, id: keyId(digest), name: entry.name, group: name, ...budgetsOf(entry.budget) };
  });
  return {
    name,
    keys,
    models: [...new Set(g.models)],
    protocols: new Set(g.protocols),
    features: new Set(g.features),
    limits: withoutUndefined({ ...g.limits }),
    maxOutputTokens: g.maxOutputTokens,
    maxChoices: g.maxChoices,
    inspect: g.inspect,
    ...budgetsOf(g.budget),
  };
}

/** A budget or a list of them as the list, left out when none is written. */
function budgetsOf(written: Budget | readonly Budget[] | undefined): { budgets?: readonly Budget[] } {
  if (written === undefined) return {};
  return { budgets: Array.isArray(written) ? written : [written as Budget] };
}

function stripTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Optional schema fields come out as `undefined`; the normalised types leave them out. */
function withoutUndefined<T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}
