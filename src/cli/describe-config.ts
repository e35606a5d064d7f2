/**
 * A loaded config as `check` shows it: providers (credentials masked), models with the
 * upstream protocol each inbound protocol will use, key groups with what they reach, and
 * warnings about things that are valid but probably not meant.
 */
import type { ChalkInstance } from 'chalk';
import type { Budget, Config, CredentialConfig, KeyGroupConfig, ModelConfig, ProviderConfig } from '../config/types.js';
import { type Price, perMillion, type Rate, ratesAt } from '../cost/price.js';
import { priceOf } from '../cost/prices.js';
import { FEATURES, PROTOCOLS, type Feature, type Protocol } from '../protocols/types.js';
import { planUpstream } from '../translate/plan.js';
import { providerForModel } from '../providers/model-protocols.js';
import { printable } from '../log/terminal-text.js';
import { providerKind } from '../providers/kinds.js';
import { keyNames, maskSecret } from './banner.js';
import { groupsReaching, reachableModels } from './reach.js';
import { formatTable, type Column } from './table.js';

/** A set of protocols or features: "all" when complete, "none" when empty, else the names in canonical order. */
export function listOf<T extends string>(set: ReadonlySet<T>, all: readonly T[]): string {
  if (set.size === 0) return 'none';
  if (all.every((x) => set.has(x))) return 'all';
  return all.filter((x) => set.has(x)).join(', ');
}
export const protocolList = (set: ReadonlySet<Protocol>) => listOf(set, PROTOCOLS);
export const featureList = (set: ReadonlySet<Feature>) => listOf(set, FEATURES);

/** `provider/upstream`, or `provider (same name)` for a glob that sends the requested name; escaped for printing. */
export function servedBy(model: ModelConfig): string {
  if (model.upstreamModel !== undefined) return printable(`${model.provider}/${model.upstreamModel}`);
  return model.isGlob ? `${printable(model.provider)} (name as sent)` : printable(`${model.provider}/${model.pattern}`);
}

/** Which upstream protocol an inbound protocol reaches this model in: native, translated, or not allowed. */
export function routeCell(model: ModelConfig, provider: ProviderConfig | undefined, inbound: Protocol, c: ChalkInstance): string {
  if (!model.protocols.has(inbound) || !provider) return c.gray('—');
  const plan = planUpstream(inbound, providerForModel(provider, model.upstreamModel ?? model.pattern));
  return plan.translator ? c.yellow(`→ ${plan.upstreamProtocol}`) : c.green('native');
}

/** The credential, masked, and how it is sent ("sk-…abcd as api-key header"). */
function credentialCell(p: ProviderConfig, c: ChalkInstance): string {
  const how = providerKind(p.type).describe.credential;
  if (how === undefined) return c.gray('not needed');
  if (p.credentials.length > 0) return p.credentials.map((k) => credentialLine(k, c)).join('; ');
  if (p.apiKey) return `${maskSecret(p.apiKey)} ${c.gray(`(${how})`)}`;
  const signer = providerKind(p.type).describe.signsWith?.(p);
  return signer !== undefined ? printable(signer) : c.gray('none');
}

/** One of several credentials: its name, its key masked, and how it takes turns ("a: key …abcd, weight 2, priority 1, 60 rpm"). */
function credentialLine(k: CredentialConfig, c: ChalkInstance): string {
  const turns = [
    ...(k.weight !== 1 ? [`weight ${k.weight}`] : []),
    ...(k.priority !== 0 ? [`priority ${k.priority}`] : []),
    ...(k.limits.requestsPerMinute !== undefined ? [`${k.limits.requestsPerMinute} requests/min`] : []),
    ...(k.limits.tokensPerMinute !== undefined ? [`${k.limits.tokensPerMinute} tokens/min`] : []),
  ];
  const key = k.apiKey !== undefined ? maskSecret(k.apiKey) : Object.keys(k.own).length > 0 ? Object.keys(k.own).join(', ') : 'no key';
  return `${printable(k.name)}: ${key}${turns.length > 0 ? c.gray(`, ${turns.join(', ')}`) : ''}`;
}

export function providersTable(config: Config, c: ChalkInstance): string {
  const columns: Column<ProviderConfig>[] = [
    // Config values are printed escaped (a name could hold a control character); words of our own are not.
    { header: 'provider', cell: (p) => printable(p.id) },
    { header: 'type', cell: (p) => p.type },
    { header: 'base URL', cell: (p) => (p.baseUrl === '' ? c.gray(providerKind(p.type).describe.where(p)) : printable(p.baseUrl)) },
    { header: 'speaks', cell: (p) => protocolList(p.protocols) },
    { header: 'credential', cell: (p) => credentialCell(p, c) },
    { header: 'retries', cell: (p) => (p.baseUrl === '' ? c.gray('—') : String(p.retries)) },
  ];
  return formatTable(columns, [...config.providers.values()], c);
}

export function modelsTable(config: Config, c: ChalkInstance): string {
  const columns: Column<ModelConfig>[] = [
    { header: 'model', cell: (m) => printable(m.pattern) },
    { header: 'served by', cell: servedBy },
    { header: 'protocols', cell: (m) => protocolList(m.protocols) },
    { header: 'features', cell: (m) => featureList(m.features) },
    // One column per inbound protocol: what a client speaking it gets.
    ...PROTOCOLS.map((p): Column<ModelConfig> => ({ header: p, cell: (m) => routeCell(m, config.providers.get(m.provider), p, c) })),
    { header: 'description', cell: (m) => printable(m.description ?? '') },
  ];
  const models = [...config.models.values(), ...config.modelGlobs];
  if (models.some((m) => m.fallbacks.length > 0)) {
    columns.splice(2, 0, { header: 'fallbacks', cell: (m) => printable(m.fallbacks.join(' → ')) });
  }
  return formatTable(columns, models, c);
}

/** What each model is charged at, in USD per million tokens, and where the price comes from. */
export function pricesTable(config: Config, c: ChalkInstance): string {
  const columns: Column<ModelConfig>[] = [
    { header: 'model', cell: (m) => printable(m.pattern) },
    { header: 'input / output', cell: (m) => priceCell(config, m, c) },
    { header: 'cache read / write', cell: (m) => cacheCell(config, m, c) },
    { header: 'from', cell: (m) => priceSource(config, m, c) },
  ];
  return formatTable(columns, [...config.models.values(), ...config.modelGlobs], c);
}

/** The price a model entry is charged at; a glob sending callers' names on is priced per name, unless its entry gives one. */
export function modelPrice(config: Config, m: ModelConfig): Price | 'per name' | undefined {
  const provider = config.providers.get(m.provider);
  if (!provider) return undefined;
  if (m.isGlob && m.upstreamModel === undefined && m.price === undefined) return 'per name';
  return priceOf(config, { model: m, provider, upstreamModel: m.upstreamModel ?? m.pattern });
}

/** A rate in force now, `+` where a longer request pays more (a long-context tier). */
const rateText = (rate: Rate): string => `$${perMillion(rate, 0)}${typeof rate === 'number' ? '' : '+'}`;

function priceCell(config: Config, m: ModelConfig, c: ChalkInstance): string {
  const price = modelPrice(config, m);
  if (price === undefined || price === 'per name') return c.gray('—');
  const r = ratesAt(price, Date.now());
  return `${rateText(r.input)} / ${rateText(r.output)}`;
}

/** Cache reads and writes (the one-hour writes too where priced apart); a rate left out is the input's. */
function cacheCell(config: Config, m: ModelConfig, c: ChalkInstance): string {
  const price = modelPrice(config, m);
  if (price === undefined || price === 'per name') return c.gray('—');
  const r = ratesAt(price, Date.now());
  const write = rateText(r.cacheWrite ?? r.input);
  return `${rateText(r.cacheRead ?? r.input)} / ${write}${r.cacheWrite1h !== undefined ? ` (1 h: ${rateText(r.cacheWrite1h)})` : ''}`;
}

function priceSource(config: Config, m: ModelConfig, c: ChalkInstance): string {
  const price = modelPrice(config, m);
  if (price === undefined) return c.yellow('no price');
  if (price === 'per name') return c.gray('catalogue, by the name sent');
  return price.source === 'config' ? 'config' : printable(`catalogue: ${price.label}`);
}

/** The names a group reaches: entries it reaches whole, and `names (via glob)` where only part of a glob. */
export function reachList(config: Config, group: KeyGroupConfig): string {
  const reach = reachableModels(config, group);
  if (reach.length === 0) return 'nothing';
  return printable(reach.map((r) => (r.whole ? r.model.pattern : `${r.names.join(', ')} (via ${r.model.pattern})`)).join(', '));
}

export function groupsTable(config: Config, c: ChalkInstance): string {
  const columns: Column<KeyGroupConfig>[] = [
    { header: 'group', cell: (g) => printable(g.name) },
    { header: 'keys', cell: (g) => (g.keys.length === 0 ? c.yellow('none') : keyNames(g.keys, 8)) },
    { header: 'models', cell: (g) => printable(g.models.join(', ')) },
    { header: 'protocols', cell: (g) => protocolList(g.protocols) },
    { header: 'features', cell: (g) => featureList(g.features) },
    { header: 'reaches', cell: (g) => reachList(config, g) },
  ];
  const groups = [...config.keyGroups.values()];
  if (groups.some((g) => limitsText(g) !== '')) columns.push({ header: 'limits', cell: limitsText });
  if (groups.some((g) => budgetsText(g) !== '')) columns.push({ header: 'budgets', cell: budgetsText });
  return formatTable(columns, groups, c);
}

function limitsText(g: KeyGroupConfig): string {
  const { requestsPerMinute: rpm, concurrentRequests: conc, tokensPerMinute: tpm } = g.limits;
  const caps = [g.maxOutputTokens && `≤ ${g.maxOutputTokens} output tokens`, g.maxChoices && `n ≤ ${g.maxChoices}`];
  return [rpm && `${rpm} req/min`, conc && `${conc} at once`, tpm && `${tpm} tokens/min`, ...caps].filter(Boolean).join(', ');
}

/** The group's budgets, then its keys' (by name, else id). */
function budgetsText(g: KeyGroupConfig): string {
  const list = (budgets: readonly Budget[] | undefined) => (budgets ?? []).map((b) => `$${b.usd}/${b.per}`).join(' + ');
  const parts = g.budgets?.length ? [list(g.budgets)] : [];
  for (const k of g.keys) if (k.budgets?.length) parts.push(printable(`${k.name ?? k.id}: ${list(k.budgets)}`));
  return parts.join(', ');
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Valid, but likely not what was meant. Each names the config path it is about. */
export function configWarnings(config: Config): string[] {
  const out: string[] = [];
  if (!LOOPBACK.has(config.server.host)) {
    out.push(`server.host: "${config.server.host}" lets other machines reach the gateway; anyone with a key can use your providers`);
  }
  if (config.keyGroups.size === 0) {
    out.push(
      LOOPBACK.has(config.server.host)
        ? 'keyGroups: none configured, so every request will be refused'
        : `keyGroups: none configured; serve refuses to listen on ${config.server.host} without one`,
    );
  }
  for (const g of config.keyGroups.values()) {
    if (g.keys.length === 0) out.push(`keyGroups.${g.name}.keys: empty, so nobody can use this group`);
  }
  const models = [...config.models.values(), ...config.modelGlobs];
  for (const p of config.providers.values()) {
    if (!models.some((m) => m.provider === p.id)) out.push(`providers.${p.id}: no model uses it`);
    // A vendor's API always wants a key; a local openai-compatible server usually does not.
    const { keyRequiredBy: refuser, signsWith } = providerKind(p.type).describe;
    const credential = p.apiKey || p.credentials.length > 0 || signsWith?.(p) !== undefined;
    if (refuser !== undefined && !credential) out.push(`providers.${p.id}.apiKey: not set; ${refuser} will refuse the requests`);
  }
  if (config.keyGroups.size > 0) {
    for (const m of models) {
      const reaching = groupsReaching(config, m);
      if (reaching.length === 0) out.push(`models.${m.pattern}: no key group may call it`);
      else if (reaching.some(hasBudgets) && modelPrice(config, m) === undefined) {
        out.push(`models.${m.pattern}: no price known, so its requests count nothing against budgets; give it a price`);
      }
    }
  }
  return out;
}

const hasBudgets = (g: KeyGroupConfig): boolean => (g.budgets?.length ?? 0) > 0 || g.keys.some((k) => (k.budgets?.length ?? 0) > 0);
