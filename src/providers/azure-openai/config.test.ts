/**
 * The azure-openai kind's config: its fields, defaults and rules through `parseConfig`, the URLs of
 * its two forms, and how `check` and the banner show it. The HTTP side is in
 * test/contracts/providers.test.ts and test/e2e/azure-openai.test.ts.
 */
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { formatBanner } from '../../cli/banner.js';
import { configWarnings, providersTable } from '../../cli/describe-config.js';
import { parseConfig } from '../../config/parse.js';
import type { ConfigIssue } from '../../errors.js';
import type { Operation, Protocol } from '../../protocols/types.js';
import { deploymentForm, deploymentUrl, modelsUrl, v1Url } from './urls.js';
import { configIssues } from '../../../test/helpers/config-issues.js';

const plain = new Chalk({ level: 0 });

const withAzure = (entry: Record<string, unknown>) => ({
  providers: { az: { type: 'azure-openai', ...entry } },
  models: { 'gpt-4.1': { provider: 'az', upstreamModel: 'my-deployment' } },
});

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
    [
      'deployment without apiVersion',
      { resource: 'contoso', deployment: 'd', protocols: ['chat'] },
      [{ path: 'providers.az.apiVersion', message: 'required with deployment: a deployment is reached at /openai/deployments/{deployment}/...?api-version=...' }],
    ],
    ...['https://contoso.openai.azure.com/openai/v1', 'https://contoso.openai.azure.com/openai/', 'https://contoso.openai.azure.com/OpenAI'].map((baseUrl): Refusal => [
      `apiVersion with the base URL ${baseUrl}`,
      { baseUrl, apiVersion: '2024-10-21' },
      [{ path: 'providers.az.baseUrl', message: 'with apiVersion, the resource endpoint (https://{resource}.openai.azure.com), without /openai or /openai/v1' }],
    ]),
    ...[undefined, ['responses', 'chat'], ['responses']].map((protocols): Refusal => [
      `deployment with protocols ${JSON.stringify(protocols)}`,
      { resource: 'contoso', apiVersion: '2024-10-21', deployment: 'd', ...(protocols ? { protocols } : {}) },
      [
        {
          path: 'providers.az.protocols',
          message:
            'must be ["chat"] with deployment: Azure serves Responses at /openai/responses, where the body\'s model names the deployment; for Responses leave deployment out and name the deployment in each model\'s upstreamModel',
        },
      ],
    ]),
    ...['2024-10-21-beta', 'v1', 'preview', '2024-1-21'].map((apiVersion): Refusal => [
      `apiVersion ${apiVersion}`,
      { resource: 'contoso', apiVersion },
      [{ path: 'providers.az.apiVersion', message: 'must be a dated api-version, such as 2024-10-21 or 2025-04-01-preview' }],
    ]),
    [
      'Entra ID with the client secret missing',
      { resource: 'contoso', tenantId: 't', clientId: 'c' },
      [{ path: 'providers.az.clientSecret', message: "required: Microsoft Entra ID's client-credentials flow takes tenantId, clientId and clientSecret" }],
    ],
    [
      'Entra ID and a key',
      { resource: 'contoso', tenantId: 't', clientId: 'c', clientSecret: 's', apiKey: 'k' },
      [{ path: 'providers.az.apiKey', message: 'give apiKey or Microsoft Entra ID (tenantId, clientId, clientSecret), not both' }],
    ],
    [
      'authorityHost without Entra ID',
      { resource: 'contoso', apiKey: 'k', authorityHost: 'https://login.microsoftonline.us' },
      [{ path: 'providers.az.authorityHost', message: 'only with Microsoft Entra ID (tenantId, clientId, clientSecret)' }],
    ],
    ['a misspelt field, with a suggestion', { resource: 'contoso', resorce: 'x' }, [{ path: 'providers.az.resorce', message: 'unknown field (did you mean "resource"?)' }]],
    ['a field of another kind on openai', null, [{ path: 'providers.az.resource', message: 'unknown field' }]],
  ])('refuses %s', (_name, entry, issues) => {
    const raw = entry === null ? { providers: { az: { type: 'openai', resource: 'contoso' } }, models: { m: { provider: 'az' } } } : withAzure(entry);
    expect(configIssues(raw)).toEqual(issues);
  });

  it('the deployment form by resource: the resource endpoint as the base URL', () => {
    const p = parseConfig(withAzure({ resource: 'Contoso', apiVersion: '2024-10-21', apiKey: 'k' }), { env: {} }).providers.get('az')!;
    expect(p.baseUrl).toBe('https://contoso.openai.azure.com');
    expect(deploymentForm(p)).toEqual({ apiVersion: '2024-10-21', deployment: undefined });
  });

  it('Entra ID: the client secret is a secret, cut from error text like a key', () => {
    const p = parseConfig(withAzure({ resource: 'contoso', tenantId: 't', clientId: 'c', clientSecret: '${SECRET}' }), { env: { SECRET: 'client-secret-value-0123' } })
      .providers.get('az')!;
    expect(p.secrets).toEqual(['client-secret-value-0123']);
    expect(p.apiKey).toBeUndefined();
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

describe('azure-openai URLs', () => {
  const provider = (entry: Record<string, unknown>) => parseConfig(withAzure({ apiKey: 'k', ...entry }), { env: {} }).providers.get('az')!;
  type Row = readonly [entry: Record<string, unknown>, protocol: Protocol, operation: Operation, model: string | undefined, url: string];
  it.each<Row>([
    [{ resource: 'contoso' }, 'chat', 'create', 'gpt-x', 'https://contoso.openai.azure.com/openai/v1/chat/completions'],
    [{ resource: 'contoso' }, 'responses', 'create', 'gpt-x', 'https://contoso.openai.azure.com/openai/v1/responses'],
    [{ resource: 'contoso', apiVersion: '2024-10-21' }, 'chat', 'create', 'my-gpt41', 'https://contoso.openai.azure.com/openai/deployments/my-gpt41/chat/completions?api-version=2024-10-21'],
    [
      { resource: 'contoso', apiVersion: '2025-04-01-preview' },
      'responses',
      'create',
      'my-gpt41',
      'https://contoso.openai.azure.com/openai/responses?api-version=2025-04-01-preview',
    ],
    [
      { resource: 'contoso', apiVersion: '2024-10-21', deployment: 'pinned', protocols: ['chat'] },
      'chat',
      'create',
      'gpt-x',
      'https://contoso.openai.azure.com/openai/deployments/pinned/chat/completions?api-version=2024-10-21',
    ],
    // A model name cannot add a path segment or a query of its own.
    [{ baseUrl: 'http://127.0.0.1:9000', apiVersion: '2024-10-21' }, 'chat', 'create', 'a/b?c', 'http://127.0.0.1:9000/openai/deployments/a%2Fb%3Fc/chat/completions?api-version=2024-10-21'],
  ])('%j %s %s, model %s: %s', (entry, protocol, operation, model, url) => {
    const p = provider(entry);
    const form = deploymentForm(p);
    const call = { protocol, operation, model, stream: false };
    expect((form === undefined ? v1Url(p, call) : deploymentUrl(p, form, call)).href).toBe(url);
  });

  it('the deployment form without a deployment needs the call\'s model', () => {
    const p = provider({ resource: 'contoso', apiVersion: '2024-10-21' });
    expect(() => deploymentUrl(p, deploymentForm(p)!, { protocol: 'chat', operation: 'create', model: undefined, stream: false })).toThrow(RangeError);
  });

  it.each([
    [{ resource: 'contoso' }, 'https://contoso.openai.azure.com/openai/v1/models'],
    [{ resource: 'contoso', apiVersion: '2024-10-21' }, 'https://contoso.openai.azure.com/openai/models?api-version=2024-10-21'],
  ])('check --probe lists the models of %j at %s', (entry, url) => {
    expect(modelsUrl(provider(entry)).href).toBe(url);
  });
});
