/**
 * Packages a gateway loads only when it needs them (docs/performance.md, "Memory at start"): no source file imports
 * them as a value at its top, which would load them in every gateway at start. `import type` and `import()` are
 * fine; @pydantic/genai-prices is for scripts/write-catalogue.ts and the tests only. test/e2e/start-memory.test.ts
 * checks the same of a running gateway.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A static import of `pkg` (or a path inside it) that brings a value in. */
const valueImport = (pkg: string) => new RegExp(`^(?:import|export)\\s+(?!type\\b)[^;]*from\\s+'${pkg.replace(/[/.]/g, '\\$&')}(?:/[^']*)?'`, 'm');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * Packages each source loads with `import()` where it needs them (ioredis: src/state/redis-client.ts). (prom-client and ora are imported at the top of
 * modules that are themselves loaded with `import()`, src/metrics/ and src/cli/spinner.ts: the running check covers them.)
 */
const ON_DEMAND = ['@pydantic/genai-prices', 'ioredis', 'ws', 'google-auth-library', '@aws-sdk/credential-providers', '@smithy/signature-v4'];

describe('packages loaded on demand', () => {
  const files = sources(join(ROOT, 'src')).map((f) => ({ file: relative(ROOT, f), text: readFileSync(f, 'utf8') }));

  it.each(ON_DEMAND)('no source file imports %s as a value', (pkg) => {
    const re = valueImport(pkg);
    expect(files.filter((f) => re.test(f.text)).map((f) => f.file)).toEqual([]);
  });

  it('no source file imports @pydantic/genai-prices at all: the gateway reads its compact copy', () => {
    expect(files.filter((f) => f.text.includes("'@pydantic/genai-prices'")).map((f) => f.file)).toEqual([]);
  });

  it.each([
    ["import { WebSocketServer } from 'ws';", 'ws', true],
    ["import { Redis } from 'ioredis';", 'ioredis', true],
    ["import Redis from 'ioredis';", 'ioredis', true],
    ["import type { Redis } from 'ioredis';", 'ioredis', false],
    ["import { Registry } from 'prom-client';", 'prom-client', true],
    ["export { calcPrice } from '@pydantic/genai-prices';", '@pydantic/genai-prices', true],
    ["import type { WebSocket } from 'ws';", 'ws', false],
    ["const ws = await import('ws');", 'ws', false],
    ["import { x } from 'wsx';", 'ws', false],
  ])('tells a value import from the rest: %s', (line, pkg, value) => {
    expect(valueImport(pkg).test(line)).toBe(value);
  });
});
