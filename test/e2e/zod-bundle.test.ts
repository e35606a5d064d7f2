/**
 * The built gateway's zod (dist/config/zod.js, written by scripts/bundle-zod.mjs: zod in one file without its
 * locales) is zod: the same `z`, and the config read with it gives the same issues, messages and JSON Schema as the
 * sources read with the package. Reads `dist/`, so build first (`npm test` does).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../src/errors.js';
import { parseConfig } from '../../src/config/parse.js';
import { JSON_SCHEMA_PATH } from '../../src/config/json-schema.js';

const DIST = new URL('../../dist/', import.meta.url);
const REPO = new URL('../../', import.meta.url);

// Imported by URL: the test reads what the build wrote, not what the type checker would resolve.
const built = async <T>(path: string): Promise<T> => (await import(new URL(path, DIST).href)) as T;

type Raw = Record<string, unknown>;
type Parse = (raw: unknown, options: { env: Record<string, string> }) => unknown;

/** The issues `parse` finds in `raw`, or 'valid'. */
function issuesOf(parse: Parse, raw: unknown): unknown {
  try {
    parse(raw, { env: {} });
    return 'valid';
  } catch (error) {
    // The built ConfigError is dist's class, not the sources'.
    if (error instanceof Error && error.name === ConfigError.name) return (error as ConfigError).issues;
    throw error;
  }
}

const provider = (fields: Raw) => ({ providers: { p: { type: 'openai', ...fields } }, models: { m: { provider: 'p' } } });

/** Configs that reach each kind of check: zod's own messages (English), the gateway's error map, refinements, unions. */
const CONFIGS: [string, unknown][] = [
  ['a valid config', { ...provider({ apiKey: 'k' }), keyGroups: { dev: { keys: ['dev-key'] } } }],
  ['not an object', []],
  ['an unknown field with a near name', { ...provider({ apiKy: 'k' }) }],
  ['an unknown provider type', { providers: { p: { type: 'azure' } }, models: {} }],
  ['a type missing', { providers: { p: { apiKey: 'k' } }, models: {} }],
  ['a base URL that is not one', provider({ baseUrl: 'localhost:1' })],
  ['a header name that is not a token', provider({ headers: { 'a b': 'x' } })],
  ['a header value with a line break', provider({ headers: { a: 'x\ny' } })],
  ['retries too many', provider({ retries: 11 })],
  ['a timeout not an integer', provider({ timeouts: { idleMs: 1.5 } })],
  ['a credential name with a space', provider({ credentials: [{ name: 'a b', apiKey: 'k' }] })],
  ['a port as a string', { ...provider({}), server: { port: '80' } }],
  ['a time zone unknown', { ...provider({}), server: { timeZone: 'Mars/Olympus' } }],
  ['a malformed hashed key', { ...provider({}), keyGroups: { g: { keys: ['sha256:12'] } } }],
  ['a key that is a number', { ...provider({}), keyGroups: { g: { keys: [5] } } }],
  ['a budget without a period', { ...provider({}), keyGroups: { g: { keys: ['k'], budget: { usd: 1 } } } }],
  ['an unknown protocol', { ...provider({}), keyGroups: { g: { keys: ['k'], protocols: ['soap'] } } }],
  ['a metrics label twice', { ...provider({}), metrics: { labels: ['model', 'model'] } }],
  ['a Redis URL that is not one', { ...provider({}), state: { redis: 'http://x' } }],
  ['a model on no provider', { providers: {}, models: { m: { provider: 'nowhere' } } }],
  ['a Bedrock region malformed', { providers: { b: { type: 'bedrock', region: 'mars', apiKey: 'k' } }, models: {} }],
];

describe("the build's zod", () => {
  it("is zod's `z`, every export but the locales, which nothing uses", async () => {
    const { z: bundled } = await built<{ z: typeof z }>('config/zod.js');
    expect(bundled).not.toBe(z);
    expect(bundled.core.version).toEqual(z.core.version);
    expect(Object.keys(bundled).sort()).toEqual(Object.keys(z).sort());
    expect(Object.keys(bundled.locales)).toEqual([]);
    expect(Object.keys(z.locales).length).toBeGreaterThan(1);
  });

  it.each(CONFIGS)('finds in %s what the sources find', async (_what, raw) => {
    const { parseConfig: parseBuilt } = await built<{ parseConfig: Parse }>('config/parse.js');
    const expected = issuesOf(parseConfig as Parse, raw);
    expect(issuesOf(parseBuilt, raw)).toEqual(expected);
  });

  it('writes the committed JSON Schema', async () => {
    const { renderJsonSchema } = await built<{ renderJsonSchema: () => string }>('config/json-schema.js');
    expect(renderJsonSchema()).toBe(readFileSync(new URL(JSON_SCHEMA_PATH, REPO), 'utf8'));
  });
});
