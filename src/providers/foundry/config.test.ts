/**
 * The foundry kind's config: its fields, defaults and rules through `parseConfig`, and how `check`
 * shows it. The HTTP side is in test/contracts/providers.test.ts and test/e2e/foundry.test.ts.
 */
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { providersTable } from '../../cli/describe-config.js';
import { parseConfig } from '../../config/parse.js';
import type { ConfigIssue } from '../../errors.js';
import { configIssues } from '../../../test/helpers/config-issues.js';

const withFoundry = (entry: Record<string, unknown>) => ({
  providers: { f: { type: 'foundry', ...entry } },
  models: { 'claude-sonnet': { provider: 'f', upstreamModel: 'my-claude-deployment' } },
});

describe('foundry config', () => {
  it.each([
    [{ resource: 'Contoso-AI' }, 'https://contoso-ai.services.ai.azure.com/anthropic'],
    [{ baseUrl: 'https://contoso.services.ai.azure.com/anthropic/' }, 'https://contoso.services.ai.azure.com/anthropic'],
  ])('%j: base URL %s, speaks messages', (entry, baseUrl) => {
    const p = parseConfig(withFoundry({ ...entry, apiKey: 'k' }), { env: {} }).providers.get('f')!;
    expect(p.baseUrl).toBe(baseUrl);
    expect([...p.protocols]).toEqual(['messages']);
  });

  it.each<readonly [string, Record<string, unknown>, readonly ConfigIssue[]]>([
    ['neither resource nor baseUrl', {}, [{ path: 'providers.f.resource', message: 'required: the Foundry resource name, or a baseUrl' }]],
    ['both', { resource: 'contoso', baseUrl: 'https://contoso.services.ai.azure.com/anthropic' }, [{ path: 'providers.f.baseUrl', message: 'give resource or baseUrl, not both' }]],
    [
      'a resource that is not a name',
      { resource: 'contoso.evil.com/x' },
      [{ path: 'providers.f.resource', message: 'must be a Foundry resource name: letters, digits and inner hyphens, at most 64 characters' }],
    ],
    [
      'Entra ID without its tenant',
      { resource: 'contoso', clientId: 'c', clientSecret: 's' },
      [{ path: 'providers.f.tenantId', message: "required: Microsoft Entra ID's client-credentials flow takes tenantId, clientId and clientSecret" }],
    ],
    [
      'Entra ID and a key',
      { resource: 'contoso', tenantId: 't', clientId: 'c', clientSecret: 's', apiKey: 'k' },
      [{ path: 'providers.f.apiKey', message: 'give apiKey or Microsoft Entra ID (tenantId, clientId, clientSecret), not both' }],
    ],
    ['an azure-openai field', { resource: 'contoso', apiVersion: '2024-10-21' }, [{ path: 'providers.f.apiVersion', message: 'unknown field' }]],
  ])('refuses %s', (_name, entry, issues) => {
    expect(configIssues(withFoundry(entry))).toEqual(issues);
  });

  it('check shows the key masked, with the header it goes in', () => {
    const config = parseConfig(withFoundry({ resource: 'contoso', apiKey: 'foundry-secret-key-0123456789' }), { env: {} });
    const table = providersTable(config, new Chalk({ level: 0 }));
    expect(table).toContain('(x-api-key header)');
    expect(table).not.toContain('foundry-secret-key-0123456789');
  });
});
