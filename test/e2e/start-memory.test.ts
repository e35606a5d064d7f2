/**
 * What a just-started gateway holds, in child processes through the real `bin/` launcher (it runs `dist/`, so
 * build first: `npm test` does), with test/helpers/start-probe.mjs preloaded to list the modules it loaded and
 * read V8's heap: the packages a config does not use stay unloaded, and the young generation is still its first
 * size (docs/performance.md, "Memory at start").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';

const REPO = new URL('../..', import.meta.url).pathname;
const BIN = join(REPO, 'bin/model-gateway.js');
const PROBE = join(REPO, 'test/helpers/start-probe.mjs');
const UPSTREAM = 'http://127.0.0.1:9';

/** Packages loaded only by a gateway whose config uses them (ws: by the first WebSocket upgrade). */
const ON_DEMAND = [
  '@pydantic/genai-prices',
  'ioredis',
  'prom-client',
  '@opentelemetry/sdk-trace-base',
  'google-auth-library',
  '@aws-sdk/credential-providers',
  '@smithy/signature-v4',
  'ora',
  'ws',
];

/** A config as users write one: every common provider kind (Bedrock with an API key), globs, hashed keys. */
const CONFIG = {
  server: { host: '127.0.0.1', port: 0 },
  providers: {
    openai: { type: 'openai', baseUrl: `${UPSTREAM}/v1`, apiKey: 'sk-test' },
    anthropic: { type: 'anthropic', baseUrl: UPSTREAM, apiKey: 'sk-ant-test' },
    gemini: { type: 'gemini', baseUrl: UPSTREAM, apiKey: 'gemini-test' },
    bedrock: { type: 'bedrock', baseUrl: UPSTREAM, apiKey: 'bedrock-test' },
    local: { type: 'openai-compatible', baseUrl: `${UPSTREAM}/v1` },
    echo: { type: 'echo' },
  },
  models: {
    'gpt-*': { provider: 'openai' },
    'claude-*': { provider: 'anthropic' },
    'gemini-*': { provider: 'gemini' },
    'bedrock-claude': { provider: 'bedrock', upstreamModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
    local: { provider: 'local', upstreamModel: 'qwen2.5-coder:7b' },
    echo: { provider: 'echo' },
  },
  keyGroups: { dev: { keys: ['gw-start-memory-key-0123456789'], models: ['*'] } },
};

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

interface Probed {
  readonly modules: readonly string[];
  readonly spaces: Readonly<Record<string, number>>;
}

/** Starts the gateway with `args` after `serve --config`, waits until it listens, and reads the probe. */
async function startAndProbe(args: readonly string[]): Promise<Probed> {
  const dir = mkdtempSync(join(tmpdir(), 'mgw-start-'));
  const config = join(dir, 'gateway.config.json');
  writeFileSync(config, JSON.stringify(CONFIG));
  const out = join(dir, 'probe.json');
  const child = spawn(process.execPath, ['--import', PROBE, BIN, 'serve', '--config', config, '--port', '0', '--no-color', ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir, MODEL_GATEWAY_DATA_DIR: join(dir, 'data'), START_PROBE_OUT: out },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let text = '';
  child.stdout!.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (text += c.toString()));
  await waitFor(() => /listening on http/.test(text), 'the gateway to listen', 20_000);
  child.kill('SIGUSR2');
  const probed = await waitFor(
    () => {
      try {
        return JSON.parse(readFileSync(out, 'utf8')) as Probed;
      } catch {
        return undefined;
      }
    },
    'the probe to write',
  );
  child.kill('SIGKILL');
  return probed;
}

const loaded = (probed: Probed, pkg: string) => probed.modules.some((m) => m.includes(`/node_modules/${pkg}/`));

describe('a just-started gateway', () => {
  it.each([
    ['a config of API keys, no metrics, traces or Redis', [], []],
    // The probe's own check: a package the flags ask for shows as loaded.
    ['with --metrics-port', ['--metrics-port', '0'], ['prom-client']],
  ])('%s loads only the on-demand packages it uses', async (_what, args, used) => {
    const probed = await startAndProbe(args);
    expect(loaded(probed, 'undici')).toBe(true);
    // Only the part of undici the gateway calls with (providers/undici-lean.ts), not its index: fetch, WebSocket, caches.
    expect(probed.modules.filter((m) => /\/node_modules\/undici\/(index\.js|lib\/web\/)/.test(m))).toEqual([]);
    expect(ON_DEMAND.filter((pkg) => loaded(probed, pkg))).toEqual(used);
    // zod is the build's one module, dist/config/zod.js, without the package's modules and its locales.
    expect(probed.modules.filter((m) => m.includes('/node_modules/zod/'))).toEqual([]);
    expect(probed.modules.some((m) => m.endsWith('/dist/config/zod.js'))).toBe(true);
  });

  it('has its young generation at its first size, not grown by the start', async () => {
    const probed = await startAndProbe([]);
    // V8's first size is a small fraction of its largest, which a start that lets it grow reaches.
    expect(probed.spaces.new_space).toBeLessThanOrEqual(4 * 2 ** 20);
  });
});
