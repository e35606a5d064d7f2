/**
 * The compact catalogue (`src/cost/catalogue.json`) made from the catalogue `@pydantic/genai-prices` ships:
 * per provider its id, API pattern, other ids and fallbacks, per model its id, match rule and token prices in
 * the gateway's form. Used by `scripts/write-catalogue.ts` and by the test that holds the gateway's lookups to
 * the package's (`src/cost/catalogue.contract.test.ts`); the gateway itself never loads the package.
 */
import { type MatchLogic, type ModelInfo, type ModelPrice, type Provider, waitForUpdate } from '@pydantic/genai-prices';
import type { Catalogue, CatalogueModel, CatalogueProvider, MatchRule } from '../src/cost/catalogue.js';
import type { PricePeriod, Rate, Rates } from '../src/cost/price.js';

export const CATALOGUE_PATH = 'src/cost/catalogue.json';

/** The package's own catalogue: the data it carries (nothing fetched: `updatePrices` is never called). */
export async function packageProviders(): Promise<Provider[]> {
  const providers = await waitForUpdate();
  if (!providers) throw new Error('@pydantic/genai-prices has no catalogue');
  return providers;
}

export async function packageVersion(): Promise<string> {
  const { createRequire } = await import('node:module');
  const { readFileSync } = await import('node:fs');
  const require = createRequire(import.meta.url);
  // The package's `exports` leaves out package.json: read it from beside its entry.
  const entry = require.resolve('@pydantic/genai-prices');
  const file = entry.replace(/[\\/]dist[\\/][^\\/]+$/, '/package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

export function compactCatalogue(providers: readonly Provider[], version: string): Catalogue {
  return { version, providers: providers.map(compactProvider) };
}

function compactProvider(p: Provider): CatalogueProvider {
  return {
    id: p.id,
    api: p.api_pattern,
    ...(p.provider_match ? { match: rule(p.provider_match) } : {}),
    ...(p.fallback_model_providers?.length ? { fallbacks: p.fallback_model_providers } : {}),
    models: p.models.map((m): CatalogueModel => [m.id, rule(m.match), periodsOf(m) ?? 0]),
  };
}

/** The rule with its strings lower-cased, as the package compares them (a regex is tried as written). */
function rule(m: MatchLogic): MatchRule {
  if ('and' in m) return { and: m.and.map(rule) };
  if ('or' in m) return { or: m.or.map(rule) };
  if ('equals' in m) return { equals: m.equals.toLowerCase() };
  if ('starts_with' in m) return { starts_with: m.starts_with.toLowerCase() };
  if ('ends_with' in m) return { ends_with: m.ends_with.toLowerCase() };
  if ('contains' in m) return { contains: m.contains.toLowerCase() };
  if ('regex' in m) return { regex: m.regex };
  throw new Error(`a match rule this script does not know: ${JSON.stringify(m)}`);
}

/**
 * The file the gateway reads: the catalogue as one JSON text, which V8 parses far faster and smaller than
 * code (its `version` says which release of the package it was written from).
 */
export function renderCatalogue(catalogue: Catalogue): string {
  return `${JSON.stringify(catalogue)}\n`;
}

/** A model's token prices, period by period; undefined when one has no input or output rate (priced per request or per second). */
export function periodsOf(model: ModelInfo): PricePeriod[] | undefined {
  if (!Array.isArray(model.prices)) {
    const rates = ratesOf(model.prices);
    return rates ? [{ rates }] : undefined;
  }
  const periods: PricePeriod[] = [];
  for (const { constraint, prices } of model.prices) {
    const rates = ratesOf(prices);
    if (!rates) return undefined;
    if (constraint === undefined) periods.push({ rates });
    else if (constraint.type === 'start_date') periods.push({ rates, from: Date.parse(`${constraint.start_date}T00:00:00Z`) });
    else periods.push({ rates, daily: { start: secondsOfDay(constraint.start_time), end: secondsOfDay(constraint.end_time) } });
  }
  return periods.length > 0 ? periods : undefined;
}

function ratesOf(p: ModelPrice): Rates | undefined {
  const input = rate(p.input_mtok);
  const output = rate(p.output_mtok);
  if (input === undefined || output === undefined) return undefined;
  const optional = { cacheRead: rate(p.cache_read_mtok), cacheWrite: rate(p.cache_write_mtok), cacheWrite1h: rate(p.cache_write_1h_mtok) };
  // Rates left out rather than written undefined: JSON has no undefined, and the contract test compares the two.
  return { input, output, ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)) };
}

function rate(value: ModelPrice[string]): Rate | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (value === undefined || typeof value.base !== 'number') return undefined;
  return { base: value.base, tiers: value.tiers.map((t) => ({ start: t.start, price: t.price })) };
}

/** `HH:MM:SS` with a `Z` or an offset, as UTC seconds of the day. */
function secondsOfDay(time: string): number {
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/.exec(time);
  if (!m) return 0;
  const local = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
  const offset = m[4] === 'Z' ? 0 : (m[5] === '+' ? 1 : -1) * (Number(m[6]) * 3600 + Number(m[7]) * 60);
  return (((local - offset) % 86_400) + 86_400) % 86_400;
}
