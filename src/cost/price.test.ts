import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../config/types.js';
import { cataloguePrice } from './catalogue.js';
import { costOf, maxCostOf, type Price } from './price.js';

const flat: Price = {
  source: 'config',
  label: 'models.m.price',
  periods: [{ rates: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, cacheWrite1h: 6 } }],
};
const plain: Price = { source: 'config', label: 'models.p.price', periods: [{ rates: { input: 2, output: 8 } }] };
const tiered: Price = {
  source: 'catalogue',
  label: 'x/y',
  periods: [{ rates: { input: { base: 1, tiers: [{ start: 200_000, price: 2 }] }, output: { base: 10, tiers: [{ start: 200_000, price: 15 }] } } }],
};
const timed: Price = {
  source: 'catalogue',
  label: 'x/z',
  periods: [
    { rates: { input: 1, output: 1 } },
    // 00:30 to 16:30 UTC: the dearer rates.
    { rates: { input: 2, output: 2 }, daily: { start: 1800, end: 59_400 } },
  ],
};
const dated: Price = {
  source: 'catalogue',
  label: 'x/d',
  periods: [{ rates: { input: 1, output: 1 } }, { rates: { input: 5, output: 5 }, from: Date.UTC(2026, 0, 1) }],
};
const NOON = Date.UTC(2026, 10, 26, 12);
const NIGHT = Date.UTC(2026, 10, 26, 20);

describe('costOf', () => {
  it.each([
    ['input and output', flat, { inputTokens: 1_000_000, outputTokens: 1_000_000 }, NOON, 18],
    // 1M input of which 600k read and 300k written (100k of those for an hour): 0.1M plain.
    [
      'cache reads and writes by lifetime',
      flat,
      { inputTokens: 1_000_000, cachedTokens: 600_000, cacheWriteTokens: 300_000, cacheWrite1hTokens: 100_000, outputTokens: 0 },
      NOON,
      0.1 * 3 + 0.6 * 0.3 + 0.2 * 3.75 + 0.1 * 6,
    ],
    ['cache rates default to the input rate', plain, { inputTokens: 1_000_000, cachedTokens: 500_000, cacheWriteTokens: 500_000, outputTokens: 500_000 }, NOON, 2 + 4],
    ['a long request pays the tier above its start', tiered, { inputTokens: 300_000, outputTokens: 100_000 }, NOON, 0.3 * 2 + 0.1 * 15],
    ['a short one the base', tiered, { inputTokens: 100_000, outputTokens: 100_000 }, NOON, 0.1 * 1 + 0.1 * 10],
    ['a daily window in force', timed, { inputTokens: 1_000_000 }, NOON, 2],
    ['outside the window', timed, { inputTokens: 1_000_000 }, NIGHT, 1],
    ['after a dated change', dated, { inputTokens: 1_000_000 }, NOON, 5],
    ['before it', dated, { inputTokens: 1_000_000 }, Date.UTC(2025, 5, 1), 1],
    // Hostile counts: negatives, NaN, reads beyond the input.
    ['counts that make no sense cost nothing extra', flat, { inputTokens: -5, outputTokens: Number.NaN, cachedTokens: 10 }, NOON, 0],
    ['reads above the input are capped at it', flat, { inputTokens: 1_000_000, cachedTokens: 2_000_000 }, NOON, 0.3],
  ])('%s', (_name, price, usage, at, usd) => {
    const cost = costOf(price, usage, at);
    expect(cost.source).toBe(price.source);
    expect(cost.usd).toBeCloseTo(usd, 9);
  });
});

describe('maxCostOf', () => {
  it('charges the estimate at the dearest input rate and the cap at the output rate', () => {
    expect(maxCostOf(flat, 1_000_000, 1_000_000, NOON)).toBeCloseTo(6 + 15, 9);
    expect(maxCostOf(plain, 500_000, 0, NOON)).toBeCloseTo(1, 9);
  });
});

const provider = (type: string, baseUrl: string): ProviderConfig =>
  ({ id: 'p', type, baseUrl, apiKey: undefined, headers: {}, protocols: new Set(), timeouts: {}, retries: 0, own: {}, secrets: [], credentials: [] }) as unknown as ProviderConfig;

describe('cataloguePrice (the shipped catalogue, offline)', () => {
  it.each([
    // A test server or a proxy in front: the kind says whose prices.
    ['anthropic', 'http://127.0.0.1:9', 'claude-sonnet-4-5-20250929', 'anthropic/'],
    ['openai', 'https://api.openai.com/v1', 'gpt-4o', 'openai/'],
    // An openai kind pointed at another service is priced as that service.
    ['openai', 'https://api.deepseek.com/v1', 'deepseek-chat', 'deepseek/'],
    ['openai-compatible', 'https://openrouter.ai/api/v1', 'anthropic/claude-sonnet-4', 'openrouter/'],
    ['gemini', 'https://generativelanguage.googleapis.com', 'gemini-2.5-pro', 'google/'],
  ])('%s at %s: %s', (type, url, model, label) => {
    const price = cataloguePrice(provider(type, url), model);
    expect(price?.source).toBe('catalogue');
    expect(price?.label.startsWith(label)).toBe(true);
    expect(costOf(price!, { inputTokens: 1000, outputTokens: 1000 }, NOON).usd).toBeGreaterThan(0);
  });

  it.each([
    ['a local server', 'openai-compatible', 'http://127.0.0.1:11434/v1', 'llama3'],
    ['a name the catalogue lacks', 'anthropic', 'http://127.0.0.1:9', 'not-a-model'],
    ['an echo provider', 'echo', '', 'claude-sonnet-4-5'],
    ['a name too long to look up', 'anthropic', 'http://127.0.0.1:9', `claude-${'x'.repeat(500)}`],
  ])('%s has no price', (_name, type, url, model) => {
    expect(cataloguePrice(provider(type, url), model)).toBeUndefined();
  });

  it('prices one-hour cache writes apart for Claude', () => {
    const price = cataloguePrice(provider('anthropic', 'http://127.0.0.1:9'), 'claude-3-5-haiku-20241022')!;
    const fiveMinutes = costOf(price, { inputTokens: 1_000_000, cacheWriteTokens: 1_000_000 }, NOON).usd!;
    const oneHour = costOf(price, { inputTokens: 1_000_000, cacheWriteTokens: 1_000_000, cacheWrite1hTokens: 1_000_000 }, NOON).usd!;
    expect(oneHour).toBeGreaterThan(fiveMinutes);
  });
});

describe('the catalogue package', () => {
  it('asks nothing of the network when loaded and read', async () => {
    const { vi } = await import('vitest');
    const fetchSpy = vi.spyOn(globalThis, 'fetch');
    const net = await import('node:net');
    const connectSpy = vi.spyOn(net.Socket.prototype, 'connect');
    vi.resetModules();
    const fresh = await import('./catalogue.js');
    fresh.cataloguePrice(provider('openai', 'https://api.openai.com/v1'), 'gpt-4o');
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(connectSpy).not.toHaveBeenCalled();
    vi.restoreAllMocks();
  });
});
