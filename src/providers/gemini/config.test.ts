/**
 * The gemini kind's config through `parseConfig`: its base URL, its fields, its model list. Its URLs
 * are in endpoint.test.ts, its errors in errors.test.ts; the HTTP side in test/contracts/providers.test.ts
 * and test/e2e/gemini-upstream.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config/parse.js';
import type { ProviderConfig } from '../../config/types.js';
import { ConfigError, type ConfigIssue } from '../../errors.js';
import { providerKind } from '../kinds.js';

const withGemini = (entry: Record<string, unknown>) => ({
  providers: { g: { type: 'gemini', ...entry } },
  models: { flash: { provider: 'g', upstreamModel: 'gemini-3-flash-preview' } },
});

const providerOf = (entry: Record<string, unknown>, env: Record<string, string> = {}): ProviderConfig =>
  parseConfig(withGemini(entry), { env }).providers.get('g')!;

function issuesOf(raw: unknown): readonly ConfigIssue[] {
  try {
    parseConfig(raw, { env: {} });
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  return [];
}

describe('gemini config', () => {
  it.each([
    [{}, 'https://generativelanguage.googleapis.com/v1beta'],
    [{ baseUrl: 'http://127.0.0.1:9000/v1beta/' }, 'http://127.0.0.1:9000/v1beta'],
    [{ baseUrl: 'https://generativelanguage.googleapis.com/v1' }, 'https://generativelanguage.googleapis.com/v1'],
  ])('%j: base URL %s, speaks gemini', (entry, baseUrl) => {
    const p = providerOf({ ...entry, apiKey: '${GEMINI_API_KEY}' }, { GEMINI_API_KEY: 'AIza-test' });
    expect(p.baseUrl).toBe(baseUrl);
    expect([...p.protocols]).toEqual(['gemini']);
    expect(p.apiKey).toBe('AIza-test');
  });

  it.each([
    [{ baseUrl: 'generativelanguage.googleapis.com' }, 'baseUrl'],
    [{ apiKey: 42 }, 'apiKey'],
    [{ project: 'my-project' }, 'project'],
  ])('%j is refused at %s', (entry, field) => {
    expect(issuesOf(withGemini(entry)).map((i) => i.path)).toContain(`providers.g.${field}`);
  });

  it('lists models at {base}/models with the key in its header, not the query', () => {
    const p = providerOf({ apiKey: 'AIza-test', baseUrl: 'http://127.0.0.1:9000/v1beta' });
    const models = providerKind('gemini').models!(p);
    expect(models.url.href).toBe('http://127.0.0.1:9000/v1beta/models');
    expect(models.headers).toMatchObject({ 'x-goog-api-key': 'AIza-test' });
  });
});
