/**
 * What one request cost, in US dollars, from the usage its provider reported and the price of the
 * model that served it. A model with no known price says so (`usd: null`) rather than costing zero.
 */
export type Cost =
  | { readonly usd: number; readonly source: CostSource }
  | { readonly usd: null; readonly source: 'unpriced' };

/** Where the price came from: the model entry's `price` in the config, or the shipped catalogue. */
export type CostSource = 'config' | 'catalogue';
