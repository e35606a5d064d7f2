/**
 * A model's price and what one request costs at it. Resolved once per model per config generation
 * (prices.ts); what is left per request is picking the rates in force (a catalogue price may change
 * on a date or by the time of day) and a few multiplications.
 */
import type { Usage } from '../protocols/types.js';
import type { Cost, CostSource } from './cost.js';

/** USD per million tokens: flat, or by the request's input size (a long-context price above a threshold). */
export type Rate = number | { readonly base: number; readonly tiers: readonly { readonly start: number; readonly price: number }[] };

/** The rates of one kind of token each; a cache rate left out is the input rate, the 1-hour write rate the write rate. */
export interface Rates {
  readonly input: Rate;
  readonly output: Rate;
  readonly cacheRead?: Rate | undefined;
  readonly cacheWrite?: Rate | undefined;
  readonly cacheWrite1h?: Rate | undefined;
}

/** Rates in force from a date, or during a daily window (UTC seconds of the day, the end excluded). */
export interface PricePeriod {
  readonly rates: Rates;
  readonly from?: number | undefined;
  readonly daily?: { readonly start: number; readonly end: number } | undefined;
}

export interface Price {
  readonly source: CostSource;
  /** Where it came from, for `check`: the catalogue's provider and model ids, or the config's model entry. */
  readonly label: string;
  /** The first is the default; the last that applies wins (the catalogue's order). */
  readonly periods: readonly PricePeriod[];
}

export const UNPRICED: Cost = Object.freeze({ usd: null, source: 'unpriced' });

const DAY_S = 86_400;

/** The rates in force at `at` (epoch ms). */
export function ratesAt(price: Price, at: number): Rates {
  const { periods } = price;
  for (let i = periods.length - 1; i > 0; i--) {
    const p = periods[i]!;
    if (p.from !== undefined) {
      if (at >= p.from) return p.rates;
    } else if (p.daily !== undefined) {
      const s = (at / 1000) % DAY_S;
      const { start, end } = p.daily;
      if (end < start ? s >= start || s < end : s >= start && s < end) return p.rates;
    } else return p.rates;
  }
  return periods[0]!.rates;
}

/** A rate's USD per million for a request of `input` tokens: a tier applies above its start. */
export function perMillion(rate: Rate, input: number): number {
  if (typeof rate === 'number') return rate;
  let r = rate.base;
  for (const t of rate.tiers) if (input > t.start) r = t.price;
  return r;
}

/**
 * What `usage` costs at `price` for a request started at `at`. Input counts cache reads and writes
 * (see protocols/types.ts); output counts reasoning, which every provider charges at the output rate.
 */
export function costOf(price: Price, usage: Usage, at: number): Cost {
  const rates = ratesAt(price, at);
  const input = nonNegative(usage.inputTokens);
  const read = Math.min(nonNegative(usage.cachedTokens), input);
  const write = Math.min(nonNegative(usage.cacheWriteTokens), input - read);
  const write1h = Math.min(nonNegative(usage.cacheWrite1hTokens), write);
  const inputRate = perMillion(rates.input, input);
  const writeRate = rates.cacheWrite === undefined ? inputRate : perMillion(rates.cacheWrite, input);
  const usd =
    (input - read - write) * inputRate +
    read * (rates.cacheRead === undefined ? inputRate : perMillion(rates.cacheRead, input)) +
    (write - write1h) * writeRate +
    write1h * (rates.cacheWrite1h === undefined ? writeRate : perMillion(rates.cacheWrite1h, input)) +
    nonNegative(usage.outputTokens) * perMillion(rates.output, input);
  return { usd: usd / 1e6, source: price.source };
}

/** The most a request of about `input` tokens asking for up to `output` tokens can cost, at the dearest of its rates. */
export function maxCostOf(price: Price, input: number, output: number, at: number): number {
  const rates = ratesAt(price, at);
  const inputRate = Math.max(
    perMillion(rates.input, input),
    rates.cacheWrite === undefined ? 0 : perMillion(rates.cacheWrite, input),
    rates.cacheWrite1h === undefined ? 0 : perMillion(rates.cacheWrite1h, input),
  );
  return (input * inputRate + output * perMillion(rates.output, input)) / 1e6;
}

/** Counts from an upstream are hostile: anything but a finite non-negative number is none. */
const nonNegative = (n: number | undefined): number => (n !== undefined && Number.isFinite(n) && n > 0 ? n : 0);
