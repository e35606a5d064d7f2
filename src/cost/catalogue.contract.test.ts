/**
 * The gateway's catalogue lookups (`catalogue.ts`, on the compact copy) against the package's own `calcPrice` on
 * its full catalogue, the way the gateway used it before: for every model of every provider, names built from each
 * match rule, dated and cased variants, base URLs matching each API pattern and each provider kind's fallback.
 */
import { readFileSync } from 'node:fs';
import { calcPrice, type MatchLogic, type Provider } from '@pydantic/genai-prices';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CATALOGUE_PATH,
  compactCatalogue,
  packageProviders,
  packageVersion,
  periodsOf,
  renderCatalogue,
} from '../../scripts/catalogue-compact.js';
import type { ProviderConfig } from '../config/types.js';
import { cataloguePrice } from './catalogue.js';
import type { Price } from './price.js';

const LOCAL = 'http://127.0.0.1:9/v1';
const KINDS = ['openai', 'anthropic', 'gemini', 'vertex', 'bedrock', 'azure-openai', 'foundry', 'openai-compatible', 'echo'];

const providerConfig = (type: string, baseUrl: string) => ({ id: 'p', type, baseUrl }) as unknown as ProviderConfig;

/** What the gateway answered with the package: its provider by base URL, else by kind, and the model's token prices. */
function packagePrice(type: string, baseUrl: string, model: string): Price | undefined {
  if (model.length === 0 || model.length > 200) return undefined;
  const kindProvider = ({ openai: 'openai', anthropic: 'anthropic', gemini: 'google', vertex: 'google', bedrock: 'aws', 'azure-openai': 'azure', foundry: 'azure' } as Record<string, string>)[type];
  const found = (baseUrl ? calcPrice({}, model, { providerApiUrl: baseUrl }) : null) ?? (kindProvider ? calcPrice({}, model, { providerId: kindProvider }) : null);
  if (!found) return undefined;
  const periods = periodsOf(found.model);
  return periods ? { source: 'catalogue', label: `${found.provider.id}/${found.model.id}`, periods } : undefined;
}

/** Names a rule accepts, and near misses: a prefix with a suffix, a suffix with a prefix, a part inside a name. */
function namesOf(rule: MatchLogic): string[] {
  if ('and' in rule) return rule.and.flatMap(namesOf);
  if ('or' in rule) return rule.or.flatMap(namesOf);
  if ('equals' in rule) return [rule.equals, `${rule.equals}-x`];
  if ('starts_with' in rule) return [rule.starts_with, `${rule.starts_with}-preview-2`, `x-${rule.starts_with}`];
  if ('ends_with' in rule) return [`x-${rule.ends_with}`, `${rule.ends_with}-x`];
  if ('contains' in rule) return [`x-${rule.contains}-1`, rule.contains.slice(1)];
  return [];
}

/** A base URL that an API pattern accepts, built from the constructs the catalogue's patterns use. */
function exampleUrl(api: string): string {
  const url = api
    .replaceAll('(https?://)?', 'https://')
    .replaceAll('([^.]*\\.)?', 'x.')
    .replaceAll('(.*\\.)?', 'x.')
    .replaceAll('[^/]+', 'x')
    .replaceAll('[a-z0-9-]+', 'us-east-1')
    .replaceAll('(?:/|$)', '/')
    .replaceAll('(/|$)', '/')
    .replaceAll('(i)?', '')
    .replaceAll('(api\\.)?', 'api.')
    .replace(/\(\?:([^|)]*)[^)]*\)/g, '$1')
    .replaceAll('\\.', '.');
  return url.endsWith('/') ? `${url}v1` : `${url}/v1`;
}

let providers: Provider[];
beforeAll(async () => {
  providers = await packageProviders();
});

describe('the compact catalogue', () => {
  it(`is current with the installed package (regenerate with \`npm run catalogue\`)`, async () => {
    const written = readFileSync(new URL(`../../${CATALOGUE_PATH}`, import.meta.url), 'utf8');
    expect(written).toBe(renderCatalogue(compactCatalogue(providers, await packageVersion())));
  });

  it('has a base URL for each API pattern that the pattern accepts', () => {
    const misses = providers.filter((p) => !new RegExp(`^(?:${p.api_pattern})`).test(exampleUrl(p.api_pattern))).map((p) => `${p.id}: ${exampleUrl(p.api_pattern)}`);
    expect(misses).toEqual([]);
  });
});

describe('cataloguePrice agrees with the package', () => {
  const differences = (cases: Iterable<readonly [type: string, url: string, name: string]>) => {
    const found: string[] = [];
    let n = 0;
    for (const [type, url, name] of cases) {
      n++;
      const ours = cataloguePrice(providerConfig(type, url), name);
      const theirs = packagePrice(type, url, name);
      if (JSON.stringify(ours) !== JSON.stringify(theirs)) found.push(`${type} ${url} ${name}: ${ours?.label} vs ${theirs?.label}`);
    }
    return { found: found.slice(0, 20), n };
  };

  it('for every model and names from its rule, at a base URL of its provider and at each kind on a local server', () => {
    function* cases() {
      for (const p of providers) {
        const url = exampleUrl(p.api_pattern);
        for (const m of p.models) {
          const names = [m.id, m.id.toUpperCase(), ` ${m.id} `, `${m.id}-20250514`, `${m.id}-20250230`, ...namesOf(m.match)];
          for (const name of names) {
            yield ['openai-compatible', url, name] as const;
            // A URL the catalogue knows but whose provider lacks the model: the kind's provider is asked next.
            yield ['anthropic', url, name] as const;
          }
          for (const kind of KINDS) yield [kind, LOCAL, m.id] as const;
        }
      }
    }
    const { found, n } = differences(cases());
    expect(n).toBeGreaterThan(40_000);
    expect(found).toEqual([]);
  });

  it.each([
    ['no model name', 'openai', LOCAL, ''],
    ['a name too long', 'anthropic', LOCAL, `claude-${'x'.repeat(300)}`],
    ['a name at the limit', 'anthropic', LOCAL, `claude-sonnet-4-5${'x'.repeat(183)}`],
    ['no base URL', 'anthropic', '', 'claude-sonnet-4-5'],
    ['a date that is not one', 'anthropic', LOCAL, 'claude-3-5-haiku-20241399'],
    ['a dated name', 'anthropic', LOCAL, 'claude-3-5-haiku-20241022'],
    ['an unknown kind', 'openai-compatible', LOCAL, 'gpt-4o'],
    ['a provider id as a URL', 'openai', 'openai', 'gpt-4o'],
  ])('%s', (_what, type, url, name) => {
    expect(cataloguePrice(providerConfig(type, url), name)).toEqual(packagePrice(type, url, name));
  });
});
