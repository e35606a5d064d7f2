/**
 * The azure-openai kind's config: its fields, defaults and rules through `parseConfig`, and how
 * `check` and the banner show it. The HTTP side is in test/contracts/providers.test.ts and
 * test/e2e/azure-openai.test.ts.
 */
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { formatBanner } from '../../cli/banner.js';
import { configWarnings, providersTable } from '../../cli/describe-config.js';
import { parseConfig } from '../../config/parse.js';
import { ConfigError, type ConfigIssue } from '../../errors.js';

const plain = new Chalk({ level: 0 });

const withAzure = (entry: Record<string, unknown>) => ({
  providers: { az: { type: 'azure-openai', ...entry } },
  models: { 'gpt-4.1': { provider: 'az', upstreamModel: 'my-deployment' } },
});

function issuesOf(raw: unknown): readonly ConfigIssue[] {
  try {
    parseConfig(raw, { env: {} });
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  return [];
}

describe('azure-openai config', () => {
  it.each([
    [{ resource: 'contoso-east' }, 'https://contoso-east.openai.azure.com/openai/v1'],
    [{ resource: 'Contoso' }, 'https://contoso.openai.azure.com/openai/v1'],
    [{ baseUrl: 'https://contoso.openai.azure.com/openai/v1/' }, 'https://contoso.openai.azure.com/openai/v1'],
    [{ baseUrl: 'http://127.0.0.1:9000/openai/v1' }, 'http://127.0.0.1:9000/openai/v1'],
  ])('%j: base URL %s, speaks responses and chat', (entry, baseUrl) => {
    const p = parseConfig(withAzure({ ...entry, apiKey: 'k' }), { env: {} }).providers.get('az')!;
    expect(p.baseUrl).toBe(baseUrl);
    expect([...p.protocols]).toEqual(['responses', 'chat']);
    expect(p.apiKey).toBe('k');
  });

  type Refusal = readonly [name: string, entry: Record<string, unknown> | null, issues: readonly ConfigIssue[]];
  it.each<Refusal>([
    ['neither resource nor baseUrl', {}, [{ path: 'providers.az.resource', message: 'required: the Azure resource name, or a baseUrl' }]],
    [
      'both resource and baseUrl',
      { resource: 'contoso', baseUrl: 'https://contoso.openai.azure.com/openai/v1' },
      [{ path: 'providers.az.baseUrl', message: 'give resource or baseUrl, not both' }],
    ],
    ...['contoso.evil.com/x?', '-contoso', 'a b', 'x'.repeat(65), 'contoso-'].map((resource): Refusal => [
      `resource ${JSON.stringify(resource.slice(0, 20))}`,
      { resource },
      [{ path: 'providers.az.resource', message: 'must be an Azure resource name: letters, digits and inner hyphens, at most 64 characters' }],
    ]),
    ['a misspelt field, with a suggestion', { resource: 'contoso', resorce: 'x' }, [{ path: 'providers.az.resorce', message: 'unknown field (did you mean "resource"?)' }]],
    ['a field of another kind on openai', null, [{ path: 'providers.az.resource', message: 'unknown field' }]],
  ])('refuses %s', (_name, entry, issues) => {
    const raw = entry === null ? { providers: { az: { type: 'openai', resource: 'contoso' } }, models: { m: { provider: 'az' } } } : withAzure(entry);
    expect(issuesOf(raw)).toEqual(issues);
  });

  it('check shows the base URL, and the key masked with the header it goes in', () => {
    const config = parseConfig(withAzure({ resource: 'contoso', apiKey: 'azure-secret-key-0123456789' }), { env: {} });
    const table = providersTable(config, plain);
    expect(table).toContain('azure-openai');
    expect(table).toContain('https://contoso.openai.azure.com/openai/v1');
    expect(table).toContain('(api-key header)');
    expect(table).not.toContain('azure-secret-key-0123456789');
  });

  it('check warns when the key is missing', () => {
    const config = parseConfig(withAzure({ resource: 'contoso' }), { env: {} });
    expect(configWarnings(config)).toContain('providers.az.apiKey: not set; Azure OpenAI will refuse the requests');
  });

  it('the banner names the kind and base URL, never the key', () => {
    const config = parseConfig(withAzure({ resource: 'contoso', apiKey: 'azure-secret-key-0123456789' }), { env: {} });
    const banner = formatBanner({ url: 'http://127.0.0.1:4000', config, source: { filepath: undefined, description: 'test' }, chalk: plain, version: '0' });
    const line = banner.split('\n').find((l) => l.startsWith('providers'))!;
    expect(line).toContain('az (azure-openai, https://contoso.openai.azure.com/openai/v1, ');
    expect(line).not.toContain('azure-secret-key-0123456789');
  });
});
