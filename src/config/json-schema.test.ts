import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { renderJsonSchema } from './json-schema.js';
import { parseConfig } from './parse.js';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('schema/gateway.schema.json', () => {
  it('is up to date (regenerate with `npx tsx scripts/write-schema.ts`)', () => {
    expect(read('schema/gateway.schema.json')).toBe(renderJsonSchema());
  });

  it('describes every property, so editors have something to show', () => {
    const missing: string[] = [];
    const visit = (node: unknown, path: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const { properties } = node as { properties?: Record<string, unknown> };
      for (const [name, child] of Object.entries(properties ?? {})) {
        if (typeof (child as { description?: unknown }).description !== 'string') missing.push(`${path}.${name}`);
      }
      for (const [key, child] of Object.entries(node)) visit(child, `${path}.${key}`);
    };
    visit(JSON.parse(renderJsonSchema()), '');
    expect(missing).toEqual([]);
  });
});

describe('gateway.config.example.json', () => {
  const example: unknown = JSON.parse(read('gateway.config.example.json'));
  const env = { OPENAI_API_KEY: 'sk-1', ANTHROPIC_API_KEY: 'sk-2', OPENROUTER_API_KEY: 'sk-3', GATEWAY_KEY: 'gw' };

  it('points at the committed schema', () => {
    expect((example as { $schema?: unknown }).$schema).toBe('./schema/gateway.schema.json');
  });

  it('validates with the variables it references set', () => {
    const config = parseConfig(example, { env });
    expect(new Set([...config.providers.values()].map((p) => p.type))).toEqual(
      new Set(['openai', 'anthropic', 'openai-compatible', 'echo']),
    );
    expect(config.modelGlobs.length).toBeGreaterThan(0);
    expect(config.keyGroups.size).toBe(2);
  });

  it('references exactly the variables listed above', () => {
    let issues: readonly { message: string }[] = [];
    try {
      parseConfig(example, { env: {} });
    } catch (error) {
      if (error instanceof ConfigError) issues = error.issues;
    }
    const names = issues.map((i) => /environment variable (\w+) is not set/.exec(i.message)?.[1]);
    expect(names.sort()).toEqual(Object.keys(env).sort());
  });
});
