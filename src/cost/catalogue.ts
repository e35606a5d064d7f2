/**
 * Prices from the catalogue of `@pydantic/genai-prices`, read offline from the compact copy of it that
 * `npm run catalogue` writes (`catalogue.json`, read by `catalogue-data.ts`): only what a lookup needs, as
 * one JSON text parsed on the first lookup. The package itself is not loaded: evaluating its catalogue as code costs a gateway several
 * times the memory of the data (docs/performance.md, "Memory at start").
 *
 * A lookup does what the package's `calcPrice` does with a provider's base URL or id: a provider is found by
 * its base URL (the catalogue's API patterns), else by its kind; the model by the upstream model name as the
 * catalogue matches names (lower-cased, then with a `-YYYYMMDD` date written `-YYYY-MM-DD`), in the provider's
 * models and then its fallback providers'. `catalogue.contract.test.ts` holds the two to the same answers.
 */
import type { ProviderConfig } from '../config/types.js';
import { catalogueJson } from './catalogue-data.js';
import type { Price, PricePeriod } from './price.js';

/** The package's match rule; the strings lower-cased when written, except a regex's. */
export type MatchRule =
  | { readonly and: readonly MatchRule[] }
  | { readonly or: readonly MatchRule[] }
  | { readonly equals: string }
  | { readonly starts_with: string }
  | { readonly ends_with: string }
  | { readonly contains: string }
  | { readonly regex: string };

/** A model: its id, its rule, its token prices as the gateway reads them (0: none by the token). */
export type CatalogueModel = readonly [id: string, match: MatchRule, periods: readonly PricePeriod[] | 0];

export interface CatalogueProvider {
  readonly id: string;
  /** The start of its API's URLs, a regular expression. */
  readonly api: string;
  /** Other ids it is known by (`provider_match`). */
  readonly match?: MatchRule;
  /** Providers whose models it also serves, in order. */
  readonly fallbacks?: readonly string[];
  readonly models: readonly CatalogueModel[];
}

export interface Catalogue {
  /** The package's version it was written from. */
  readonly version: string;
  readonly providers: readonly CatalogueProvider[];
}

/** The catalogue's provider for a kind whose base URL it does not know (a test server, a proxy in front). */
const KIND_PROVIDER: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'google',
  vertex: 'google',
  bedrock: 'aws',
  'azure-openai': 'azure',
  foundry: 'azure',
};

/** Longest model name looked up: names come from callers when a glob sends them on. */
const NAME_LIMIT = 200;
/** Longest base URL tried against the API patterns: it comes from the config. */
const URL_LIMIT = 2048;

let catalogue: Catalogue | undefined;
/** Each pattern compiled once: the API patterns and the models' regex rules. */
const compiled = new Map<string, RegExp>();

/** The catalogue's price of `upstreamModel` at `provider`; undefined when it has none (a local server, an unknown model). */
export function cataloguePrice(provider: ProviderConfig, upstreamModel: string): Price | undefined {
  if (upstreamModel.length === 0 || upstreamModel.length > NAME_LIMIT) return undefined;
  catalogue ??= JSON.parse(catalogueJson()) as Catalogue;
  const found = lookUp(catalogue.providers, upstreamModel.toLowerCase().trim(), provider);
  if (!found) return undefined;
  const [id, , periods] = found.model;
  return periods === 0 ? undefined : { source: 'catalogue', label: `${found.provider.id}/${id}`, periods };
}

interface Found {
  readonly provider: CatalogueProvider;
  readonly model: CatalogueModel;
}

function lookUp(providers: readonly CatalogueProvider[], name: string, config: ProviderConfig): Found | undefined {
  // The base URL first: an `openai` kind pointed at another service is priced as that service.
  const url = config.baseUrl;
  if (url && url.length <= URL_LIMIT) {
    const byUrl = providers.find((p) => pattern(`^(?:${p.api})`).test(url));
    const model = byUrl && modelOf(providers, byUrl, name);
    if (model) return { provider: byUrl, model };
  }
  const kind = KIND_PROVIDER[config.type];
  const byKind = kind === undefined ? undefined : (providers.find((p) => p.id === kind) ?? providers.find((p) => p.match !== undefined && matches(p.match, kind)));
  const model = byKind && modelOf(providers, byKind, name);
  return model ? { provider: byKind, model } : undefined;
}

/** The provider's model for `name`, else its fallbacks', else the same for `name` with its date written with dashes. */
function modelOf(providers: readonly CatalogueProvider[], provider: CatalogueProvider, name: string): CatalogueModel | undefined {
  const found = withFallbacks(providers, provider, name);
  if (found) return found;
  const dashed = dashDate(name);
  return dashed === name ? undefined : withFallbacks(providers, provider, dashed);
}

function withFallbacks(providers: readonly CatalogueProvider[], provider: CatalogueProvider, name: string): CatalogueModel | undefined {
  const own = provider.models.find((m) => matches(m[1], name));
  if (own) return own;
  for (const id of provider.fallbacks ?? []) {
    // One level only, as the package does: a fallback's own fallbacks are not tried.
    const fallback = providers.find((p) => p.id === id);
    const found = fallback?.models.find((m) => matches(m[1], name));
    if (found) return found;
  }
  return undefined;
}

/** Whether lower-cased `name` meets `rule`. */
function matches(rule: MatchRule, name: string): boolean {
  if ('and' in rule) return rule.and.every((r) => matches(r, name));
  if ('or' in rule) return rule.or.some((r) => matches(r, name));
  if ('equals' in rule) return name === rule.equals;
  if ('starts_with' in rule) return name.startsWith(rule.starts_with);
  if ('ends_with' in rule) return name.endsWith(rule.ends_with);
  if ('contains' in rule) return name.includes(rule.contains);
  return pattern(rule.regex).test(name);
}

function pattern(source: string): RegExp {
  let re = compiled.get(source);
  if (re === undefined) {
    re = new RegExp(source);
    compiled.set(source, re);
  }
  return re;
}

const DATED = /(-)(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=-|:|$)/g;

/** `-20250929` written `-2025-09-29` where it is a real date, as the catalogue's ids write dates. */
function dashDate(name: string): string {
  return name.replace(DATED, (all: string, dash: string, y: string, m: string, d: string) => {
    const day = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
    return day.getUTCFullYear() === Number(y) && day.getUTCMonth() === Number(m) - 1 && day.getUTCDate() === Number(d) ? `${dash}${y}-${m}-${d}` : all;
  });
}
