/**
 * What changed between two configs, for the live-reload summary: providers, models, key
 * groups, keys and server fields. Pure. Secrets never appear in a change: gateway keys are
 * named by their label or short digest id, and a provider credential or header value that
 * differs is reported as a field that changed, without its values.
 */
import { FEATURES, PROTOCOLS } from '../protocols/types.js';
import { providerKind } from '../providers/kinds.js';
import { shownEndpoint } from '../tracing/settings.js';
import type { Config, GatewayKey, KeyGroupConfig, MetricsConfig, ModelConfig, ProviderConfig, TracingConfig } from './types.js';

export type ChangeSection = 'provider' | 'model' | 'group' | 'key' | 'server';
export type ChangeOp = 'added' | 'removed' | 'changed';

/** One field that differs: its old and new value as text, or only that it changed when the value is secret. */
export type FieldChange =
  | { readonly field: string; readonly from: string; readonly to: string }
  | { readonly field: string; readonly secret: true };

export interface ConfigChange {
  readonly section: ChangeSection;
  readonly op: ChangeOp;
  /** Provider id, model pattern, group name, `group:label` for a key (label: its name, else its short id), or `server`. */
  readonly name: string;
  /** For `added` and `removed`: a one-line, non-secret description of the entry. */
  readonly detail?: string;
  /** For `changed`: what differs. A re-mapped model has `route` (`provider/upstream`) first. */
  readonly fields: readonly FieldChange[];
}

/** Every difference from `before` to `after`, providers first, then models, groups, keys and the server. */
export function diffConfig(before: Config, after: Config): ConfigChange[] {
  return [
    ...diffEntries('provider', before.providers, after.providers, describeProvider, providerFields),
    ...diffEntries('model', modelsOf(before), modelsOf(after), describeModel, modelFields),
    ...diffEntries('group', before.keyGroups, after.keyGroups, describeGroup, groupFields),
    ...diffKeys(before.keys, after.keys),
    ...diffServer(before, after),
  ];
}

/** The one-word route of a model: where its requests go. */
export function modelRoute(m: ModelConfig): string {
  return m.upstreamModel === undefined ? m.provider : `${m.provider}/${m.upstreamModel}`;
}

/** How a key is named in summaries and logs: `group:name`, or `group:` and its short digest id. */
export function keyLabel(k: GatewayKey): string {
  return `${k.group}:${k.name ?? k.id}`;
}

function diffEntries<T>(
  section: ChangeSection,
  before: ReadonlyMap<string, T>,
  after: ReadonlyMap<string, T>,
  describe: (entry: T) => string,
  fields: (a: T, b: T) => FieldChange[],
): ConfigChange[] {
  const out: ConfigChange[] = [];
  for (const [name, old] of before) {
    const next = after.get(name);
    if (next === undefined) out.push({ section, op: 'removed', name, detail: describe(old), fields: [] });
    else {
      const changed = fields(old, next);
      if (changed.length > 0) out.push({ section, op: 'changed', name, fields: changed });
    }
  }
  for (const [name, next] of after) {
    if (!before.has(name)) out.push({ section, op: 'added', name, detail: describe(next), fields: [] });
  }
  return out;
}

function modelsOf(config: Config): Map<string, ModelConfig> {
  return new Map([...config.models.values(), ...config.modelGlobs].map((m) => [m.pattern, m]));
}

const listOf = (values: Iterable<string>, order: readonly string[]): string => {
  const set = new Set(values);
  const known = order.filter((v) => set.has(v));
  const rest = [...set].filter((v) => !order.includes(v)).sort();
  return [...known, ...rest].join(', ') || '(none)';
};
const protocols = (s: Iterable<string>) => listOf(s, PROTOCOLS);
const features = (s: Iterable<string>) => listOf(s, FEATURES);
const text = (v: string | number | undefined) => (v === undefined ? '(none)' : String(v));

/** Appends a plain field change when the rendered values differ. */
function field(out: FieldChange[], name: string, from: string, to: string): void {
  if (from !== to) out.push({ field: name, from, to });
}

function describeProvider(p: ProviderConfig): string {
  return `${p.type}, ${providerKind(p.type).describe.where(p)}`;
}

function providerFields(a: ProviderConfig, b: ProviderConfig): FieldChange[] {
  const out: FieldChange[] = [];
  field(out, 'type', a.type, b.type);
  field(out, 'baseUrl', a.baseUrl, b.baseUrl);
  if (a.apiKey !== b.apiKey) out.push({ field: 'credential', secret: true });
  // Header values often carry credentials too (Azure's `api-key`), so only their names are shown.
  const names = new Set([...Object.keys(a.headers), ...Object.keys(b.headers)]);
  for (const name of [...names].sort()) {
    if (a.headers[name] !== b.headers[name]) out.push({ field: `headers.${name}`, secret: true });
  }
  field(out, 'protocols', protocols(a.protocols), protocols(b.protocols));
  for (const t of ['connectMs', 'headersMs', 'idleMs', 'totalMs'] as const) {
    field(out, `timeouts.${t}`, String(a.timeouts[t]), String(b.timeouts[t]));
  }
  field(out, 'retries', String(a.retries), String(b.retries));
  return out;
}

function describeModel(m: ModelConfig): string {
  return `→ ${modelRoute(m)}`;
}

function modelFields(a: ModelConfig, b: ModelConfig): FieldChange[] {
  const out: FieldChange[] = [];
  field(out, 'route', modelRoute(a), modelRoute(b));
  field(out, 'protocols', protocols(a.protocols), protocols(b.protocols));
  field(out, 'features', features(a.features), features(b.features));
  field(out, 'description', text(a.description), text(b.description));
  field(out, 'maxOutputTokens', text(a.maxOutputTokens), text(b.maxOutputTokens));
  field(out, 'fallbacks', a.fallbacks.join(', ') || '(none)', b.fallbacks.join(', ') || '(none)');
  return out;
}

function describeGroup(g: KeyGroupConfig): string {
  return `${g.keys.length} key${g.keys.length === 1 ? '' : 's'}, models ${g.models.join(', ') || '(none)'}`;
}

// Keys joining or leaving a group are listed as key changes, not here.
function groupFields(a: KeyGroupConfig, b: KeyGroupConfig): FieldChange[] {
  const out: FieldChange[] = [];
  field(out, 'models', a.models.join(', ') || '(none)', b.models.join(', ') || '(none)');
  field(out, 'protocols', protocols(a.protocols), protocols(b.protocols));
  field(out, 'features', features(a.features), features(b.features));
  for (const l of ['requestsPerMinute', 'concurrentRequests', 'tokensPerMinute'] as const) {
    field(out, `limits.${l}`, text(a.limits[l]), text(b.limits[l]));
  }
  field(out, 'maxOutputTokens', text(a.maxOutputTokens), text(b.maxOutputTokens));
  field(out, 'maxChoices', text(a.maxChoices), text(b.maxChoices));
  return out;
}

/** Keys by digest: a key that stays but moves group or is renamed is `changed`, named as it is now. */
function diffKeys(before: ReadonlyMap<string, GatewayKey>, after: ReadonlyMap<string, GatewayKey>): ConfigChange[] {
  const out: ConfigChange[] = [];
  for (const [digest, old] of before) {
    const next = after.get(digest);
    if (next === undefined) {
      out.push({ section: 'key', op: 'removed', name: keyLabel(old), fields: [] });
      continue;
    }
    const fields: FieldChange[] = [];
    field(fields, 'group', old.group, next.group);
    field(fields, 'name', text(old.name), text(next.name));
    if (fields.length > 0) out.push({ section: 'key', op: 'changed', name: keyLabel(next), fields });
  }
  for (const [digest, next] of after) {
    if (!before.has(digest)) out.push({ section: 'key', op: 'added', name: keyLabel(next), fields: [] });
  }
  return out;
}

const SERVER_FIELDS = [
  'maxBodyBytes',
  'maxConcurrentRequests',
  'maxBufferedBytes',
  'headersTimeoutMs',
  'requestTimeoutMs',
  'keepAliveTimeoutMs',
  'maxConnections',
  'maxResponseBytes',
  'authFailuresPerMinute',
  'maxTools',
  'maxMessages',
  'maxContentBlocks',
] as const;

function diffServer(before: Config, after: Config): ConfigChange[] {
  const fields: FieldChange[] = [];
  field(fields, 'host', before.server.host, after.server.host);
  field(fields, 'port', String(before.server.port), String(after.server.port));
  // Unset, maxConnections is worked out at start from the open-file limit.
  const shown = (v: number | undefined) => (v === undefined ? '(default)' : String(v));
  for (const f of SERVER_FIELDS) field(fields, f, shown(before.server[f]), shown(after.server[f]));
  field(fields, 'allowedHosts', before.server.allowedHosts.join(', ') || '(none)', after.server.allowedHosts.join(', ') || '(none)');
  field(fields, 'dataDir', before.server.dataDir ?? '(default)', after.server.dataDir ?? '(default)');
  // The URL may hold a password: only that it changed is shown.
  if (before.state?.redis !== after.state?.redis) fields.push({ field: 'state.redis', secret: true });
  field(fields, 'state.keyPrefix', before.state?.keyPrefix ?? '(none)', after.state?.keyPrefix ?? '(none)');
  field(fields, 'state.onRedisDown.limits', before.state?.onRedisDown.limits ?? '(none)', after.state?.onRedisDown.limits ?? '(none)');
  field(fields, 'state.onRedisDown.budgets', before.state?.onRedisDown.budgets ?? '(none)', after.state?.onRedisDown.budgets ?? '(none)');
  field(fields, 'state.commandTimeoutMs', String(before.state?.commandTimeoutMs ?? '(none)'), String(after.state?.commandTimeoutMs ?? '(none)'));
  metricsFields(fields, before.metrics, after.metrics);
  tracingFields(fields, before.tracing, after.tracing);
  return fields.length > 0 ? [{ section: 'server', op: 'changed', name: 'server', fields }] : [];
}

/** The `metrics` section: turned on or off, or its fields (the scraper's token only as changed). */
function metricsFields(out: FieldChange[], a: MetricsConfig | undefined, b: MetricsConfig | undefined): void {
  if (a === undefined || b === undefined) {
    field(out, 'metrics', a ? 'on' : 'off', b ? 'on' : 'off');
    return;
  }
  const port = (m: MetricsConfig) => (m.port === undefined ? "(the gateway's)" : String(m.port));
  field(out, 'metrics.port', port(a), port(b));
  field(out, 'metrics.host', a.host, b.host);
  if (a.token !== b.token) out.push({ field: 'metrics.token', secret: true });
  field(out, 'metrics.labels', a.labels.join(', ') || '(none)', b.labels.join(', ') || '(none)');
}

/** The `tracing` section: header values and what the endpoint's URL may hold besides its address are never shown. */
function tracingFields(out: FieldChange[], a: TracingConfig | undefined, b: TracingConfig | undefined): void {
  if (a === undefined || b === undefined) {
    field(out, 'tracing', a ? 'on' : 'off', b ? 'on' : 'off');
    return;
  }
  const endpoint = (t: TracingConfig) => (t.otlpEndpoint === undefined ? '(from OTEL_*)' : shownEndpoint(t.otlpEndpoint));
  if (endpoint(a) !== endpoint(b)) field(out, 'tracing.otlpEndpoint', endpoint(a), endpoint(b));
  else if (a.otlpEndpoint !== b.otlpEndpoint) out.push({ field: 'tracing.otlpEndpoint', secret: true });
  field(out, 'tracing.protocol', text(a.protocol), text(b.protocol));
  const names = new Set([...Object.keys(a.headers), ...Object.keys(b.headers)]);
  for (const name of [...names].sort()) {
    if (a.headers[name] !== b.headers[name]) out.push({ field: `tracing.headers.${name}`, secret: true });
  }
  field(out, 'tracing.captureContent', String(a.captureContent), String(b.captureContent));
  field(out, 'tracing.sampleRatio', text(a.sampleRatio), text(b.sampleRatio));
}
