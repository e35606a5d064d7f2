/**
 * The price a route is charged at: the model entry's `price` in the config, else the catalogue's
 * for its provider and upstream model, else none. Worked out once per provider and upstream
 * model per config generation; a glob model sends callers' names on, so each config's table
 * keeps its first few hundred and works out the rest each time.
 */
import type { Config, ModelConfig, ModelPriceConfig, ProviderConfig } from '../config/types.js';
import { cataloguePrice } from './catalogue.js';
import type { Price } from './price.js';

const tables = new WeakMap<Config, Map<string, Price | null>>();
const NAMES_PER_TABLE = 512;

/** A model resolved to its provider and upstream name (routing's `Target`). */
export interface PricedTarget {
  readonly model: ModelConfig;
  readonly provider: ProviderConfig;
  readonly upstreamModel: string;
}

/** The price of a resolved model; undefined: none known (its cost is "no price", never zero). */
export function priceOf(config: Config, target: PricedTarget): Price | undefined {
  const written = target.model.price;
  if (written) return configPrice(target.model, written);
  let table = tables.get(config);
  if (table === undefined) {
    table = new Map();
    tables.set(config, table);
  }
  const key = `${target.provider.id}\u0000${target.upstreamModel}`;
  let price = table.get(key);
  if (price === undefined) {
    price = cataloguePrice(target.provider, target.upstreamModel) ?? null;
    if (table.size < NAMES_PER_TABLE) table.set(key, price);
  }
  return price ?? undefined;
}

const configPrices = new WeakMap<ModelConfig, Price>();

function configPrice(model: ModelConfig, written: ModelPriceConfig): Price {
  let price = configPrices.get(model);
  if (price === undefined) {
    const { input, output, cacheRead, cacheWrite } = written;
    price = { source: 'config', label: `models.${model.pattern}.price`, periods: [{ rates: { input, output, cacheRead, cacheWrite } }] };
    configPrices.set(model, price);
  }
  return price;
}
