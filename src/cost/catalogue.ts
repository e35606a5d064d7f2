/**
 * Prices from the catalogue shipped in `@pydantic/genai-prices`, read offline: only the data the
 * package carries is used (its `updatePrices`, which fetches a newer file, is never called, and
 * importing it starts nothing). A provider is found by its base URL (the catalogue's API patterns),
 * else by its kind; the model by the upstream model name, as the catalogue matches names.
 */
import { calcPrice, type ModelInfo, type ModelPrice } from '@pydantic/genai-prices';
import type { ProviderConfig } from '../config/types.js';
import type { Price, PricePeriod, Rate, Rates } from './price.js';

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

/** The catalogue's price of `upstreamModel` at `provider`; undefined when it has none (a local server, an unknown model). */
export function cataloguePrice(provider: ProviderConfig, upstreamModel: string): Price | undefined {
  if (upstreamModel.length === 0 || upstreamModel.length > NAME_LIMIT) return undefined;
  const found = lookUp(upstreamModel, provider.baseUrl, KIND_PROVIDER[provider.type]);
  if (!found) return undefined;
  const periods = periodsOf(found.model);
  return periods ? { source: 'catalogue', label: `${found.provider.id}/${found.model.id}`, periods } : undefined;
}

function lookUp(model: string, baseUrl: string, kindProvider: string | undefined) {
  try {
    // The base URL first: an `openai` kind pointed at another service is priced as that service.
    const byUrl = baseUrl ? calcPrice({}, model, { providerApiUrl: baseUrl }) : null;
    if (byUrl) return byUrl;
    return kindProvider ? calcPrice({}, model, { providerId: kindProvider }) : null;
  } catch {
    // A catalogue entry the package cannot read is no price, not a failed request.
    return null;
  }
}

function periodsOf(model: ModelInfo): PricePeriod[] | undefined {
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

/** The token rates of a catalogue price; undefined when it has no input or output rate (priced per request or per second). */
function ratesOf(p: ModelPrice): Rates | undefined {
  const input = rate(p.input_mtok);
  const output = rate(p.output_mtok);
  if (input === undefined || output === undefined) return undefined;
  return {
    input,
    output,
    cacheRead: rate(p.cache_read_mtok),
    cacheWrite: rate(p.cache_write_mtok),
    cacheWrite1h: rate(p.cache_write_1h_mtok),
  };
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
