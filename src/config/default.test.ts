import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultWrittenConfig } from './default.js';
import { loadConfig } from './load.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
// An empty directory, so the search finds nothing and the built-in default is used.
const dir = mkdtempSync(path.join(tmpdir(), 'mgw-default-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('built-in default config', () => {
  it('has the echo model and a generated key when the environment is empty', async () => {
    const { config, source } = await loadConfig({ cwd: dir, env: {} });
    expect(source.filepath).toBeUndefined();
    expect(source.description).toBe(`built-in default (no config file found in ${dir})`);
    expect(config.server).toEqual({
      host: '127.0.0.1',
      port: 8787,
      maxBodyBytes: 32 * 1024 * 1024,
      maxConcurrentRequests: 1024,
      maxBufferedBytes: 512 * 1024 * 1024,
      headersTimeoutMs: 30_000,
      requestTimeoutMs: 300_000,
      keepAliveTimeoutMs: 65_000,
      ledger: true,
      maxConnections: undefined,
      maxResponseBytes: 64 * 1024 * 1024,
      responsesStoreBytes: 64 * 1024 * 1024,
      responsesStoreTtlMs: 24 * 60 * 60 * 1000,
      allowedHosts: [],
      authFailuresPerMinute: 30,
      maxTools: 1024,
      maxMessages: 100_000,
      maxContentBlocks: 100_000,
    });
    expect([...config.providers.keys()]).toEqual(['echo']);
    expect([...config.models.keys()]).toEqual(['echo']);
    expect(config.modelGlobs).toEqual([]);

    expect(source.generatedKey).toMatch(/^mgw-[A-Za-z0-9_-]{43}$/);
    const group = config.keyGroups.get('local');
    expect(group?.models).toEqual(['*']);
    expect(group?.keys).toHaveLength(1);
    expect(group?.keys[0]?.digest).toBe(sha(source.generatedKey ?? ''));
    expect([...config.keys.keys()]).toEqual([sha(source.generatedKey ?? '')]);
  });

  it('generates a new key each time', async () => {
    const a = await loadConfig({ cwd: dir, env: {} });
    const b = await loadConfig({ cwd: dir, env: {} });
    expect(a.source.generatedKey).not.toBe(b.source.generatedKey);
  });

  it('uses MODEL_GATEWAY_KEY when set, and generates nothing', async () => {
    const { config, source } = await loadConfig({ cwd: dir, env: { MODEL_GATEWAY_KEY: 'my-key' } });
    expect(source.generatedKey).toBeUndefined();
    expect('generatedKey' in source).toBe(false);
    expect([...config.keys.keys()]).toEqual([sha('my-key')]);
    expect(config.keys.get(sha('my-key'))?.group).toBe('local');
  });

  it('adds OpenAI when OPENAI_API_KEY is set', async () => {
    const { config } = await loadConfig({ cwd: dir, env: { OPENAI_API_KEY: 'sk-openai' } });
    expect([...config.providers.keys()]).toEqual(['echo', 'openai']);
    expect(config.providers.get('openai')).toMatchObject({
      type: 'openai',
      apiKey: 'sk-openai',
      baseUrl: 'https://api.openai.com/v1',
    });
    expect(config.modelGlobs.map((m) => [m.pattern, m.provider])).toEqual([
      ['gpt-*', 'openai'],
      ['o*', 'openai'],
    ]);
  });

  it('adds Anthropic when ANTHROPIC_API_KEY is set', async () => {
    const { config } = await loadConfig({ cwd: dir, env: { ANTHROPIC_API_KEY: 'sk-ant' } });
    expect([...config.providers.keys()]).toEqual(['echo', 'anthropic']);
    expect(config.providers.get('anthropic')).toMatchObject({ apiKey: 'sk-ant', baseUrl: 'https://api.anthropic.com' });
    expect(config.modelGlobs.map((m) => [m.pattern, m.provider])).toEqual([['claude-*', 'anthropic']]);
  });

  it('with every variable set', async () => {
    const env = { OPENAI_API_KEY: 'a', ANTHROPIC_API_KEY: 'b', MODEL_GATEWAY_KEY: 'c' };
    const { config, source } = await loadConfig({ cwd: dir, env });
    expect([...config.providers.keys()]).toEqual(['echo', 'openai', 'anthropic']);
    expect(config.modelGlobs.map((m) => m.pattern)).toEqual(['claude-*', 'gpt-*', 'o*']);
    expect(source.generatedKey).toBeUndefined();
  });

  it('treats empty variables as unset', async () => {
    const env = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', MODEL_GATEWAY_KEY: '' };
    const { config, source } = await loadConfig({ cwd: dir, env });
    expect([...config.providers.keys()]).toEqual(['echo']);
    expect(source.generatedKey).toMatch(/^mgw-/);
  });

  it('is written as a WrittenConfig that references the environment rather than copying secrets', () => {
    const { written, generatedKey } = defaultWrittenConfig({ OPENAI_API_KEY: 'sk-secret' }, () => 'fixed-key');
    expect(generatedKey).toBe('fixed-key');
    expect(JSON.stringify(written)).not.toContain('sk-secret');
    expect(written.providers?.openai).toEqual({ type: 'openai', apiKey: '${OPENAI_API_KEY}' });
    expect(written.keyGroups?.local).toEqual({ keys: ['fixed-key'], models: ['*'] });
  });
});
