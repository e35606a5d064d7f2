import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { loadConfig } from './load.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'mgw-load-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, content: string): string => {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
};

const json = (model: string) =>
  JSON.stringify({
    $schema: './schema/gateway.schema.json',
    providers: { e: { type: 'echo' } },
    models: { [model]: { provider: 'e' } },
  });

const yaml = (model: string) => `
# a comment
server:
  port: 9000
providers:
  up:
    type: openai-compatible
    baseUrl: \${UP_URL}
models:
  ${model}:
    provider: up
    features: [tools, streaming]
`;

async function configErrorOf(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('loadConfig: search', () => {
  it.each([
    ['gateway.config.json', json('from-json')],
    ['.model-gatewayrc.json', json('from-json')],
    ['.model-gatewayrc', yaml('from-yaml')],
    ['.model-gatewayrc.yaml', yaml('from-yaml')],
    ['gateway.config.yaml', yaml('from-yaml')],
    ['gateway.config.yml', yaml('from-yaml')],
    ['.config/model-gatewayrc.yml', yaml('from-yaml')],
    ['model-gateway.config.mjs', `export default ${json('from-js')};`],
    ['model-gateway.config.ts', `const config: Record<string, unknown> = ${json('from-ts')};\nexport default config;`],
    ['package.json', JSON.stringify({ name: 'x', 'model-gateway': JSON.parse(json('from-package')) })],
  ])('finds %s', async (name, content) => {
    const file = write(name, content);
    const { config, source } = await loadConfig({ cwd: dir, env: { UP_URL: 'http://127.0.0.1:1234/v1/' } });
    expect(source).toEqual({ filepath: file, description: file });
    const [model] = [...config.models.keys()];
    expect(model).toMatch(/^from-/);
    if (content.includes('UP_URL')) {
      expect(config.server.port).toBe(9000);
      expect(config.providers.get('up')?.baseUrl).toBe('http://127.0.0.1:1234/v1');
      expect([...(config.models.get('from-yaml')?.features ?? [])]).toEqual(['tools', 'streaming']);
    }
  });

  it('prefers cosmiconfig places over gateway.config.*', async () => {
    write('gateway.config.json', json('second'));
    write('.model-gatewayrc.json', json('first'));
    const { config } = await loadConfig({ cwd: dir, env: {} });
    expect([...config.models.keys()]).toEqual(['first']);
  });

  it('skips a package.json without a "model-gateway" field', async () => {
    write('package.json', JSON.stringify({ name: 'x' }));
    const file = write('gateway.config.json', json('m'));
    expect((await loadConfig({ cwd: dir, env: {} })).source.filepath).toBe(file);
  });

  it('does not look in parent directories', async () => {
    write('gateway.config.json', json('m'));
    mkdirSync(path.join(dir, 'sub'));
    const { source } = await loadConfig({ cwd: path.join(dir, 'sub'), env: {} });
    expect(source.filepath).toBeUndefined();
  });

  it('reports validation issues with the file as the source', async () => {
    const file = write('gateway.config.yaml', yaml('m'));
    const error = await configErrorOf(loadConfig({ cwd: dir, env: {} }));
    expect(error.source).toBe(file);
    expect(error.issues).toEqual([{ path: 'providers.up.baseUrl', message: 'environment variable UP_URL is not set' }]);
    expect(error.message).toContain(`Invalid configuration in ${file}`);
  });

  it('reports malformed JSON found by the search', async () => {
    const file = write('gateway.config.json', '{ "providers": { ');
    const error = await configErrorOf(loadConfig({ cwd: dir, env: {} }));
    expect(error.source).toBe(file);
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]?.path).toBe('');
    expect(error.issues[0]?.message).toMatch(/^could not parse \(JSON\): /);
  });

  it('reports malformed YAML found by the search', async () => {
    const file = write('.model-gatewayrc.yaml', 'providers:\n  e: { type: echo\nmodels: [');
    const error = await configErrorOf(loadConfig({ cwd: dir, env: {} }));
    expect(error.source).toBe(file);
    expect(error.issues[0]?.message).toMatch(/^could not parse \(YAML\): /);
  });
});

describe('loadConfig: explicit path', () => {
  it('loads a relative path from cwd, ignoring files the search would find', async () => {
    write('gateway.config.json', json('searched'));
    const file = write('conf/custom.yaml', yaml('explicit'));
    const { config, source } = await loadConfig({ cwd: dir, configPath: 'conf/custom.yaml', env: { UP_URL: 'http://x' } });
    expect(source).toEqual({ filepath: file, description: file });
    expect([...config.models.keys()]).toEqual(['explicit']);
  });

  it('loads an absolute path', async () => {
    const file = write('elsewhere.json', json('abs'));
    const { config } = await loadConfig({ cwd: '/', configPath: file, env: {} });
    expect([...config.models.keys()]).toEqual(['abs']);
  });

  it('reports a missing file by its absolute path', async () => {
    const file = path.join(dir, 'nope.json');
    const error = await configErrorOf(loadConfig({ cwd: dir, configPath: 'nope.json', env: {} }));
    expect(error.source).toBe(file);
    expect(error.issues).toEqual([{ path: '', message: `config file not found: ${file}` }]);
  });

  it('reports malformed JSON', async () => {
    const file = write('bad.json', '{ "providers": {}, }');
    const error = await configErrorOf(loadConfig({ cwd: dir, configPath: file, env: {} }));
    expect(error.source).toBe(file);
    expect(error.issues[0]?.message).toMatch(/^could not parse \(JSON\): /);
    expect(error.issues[0]?.message).not.toContain('JSON Error in');
  });

  it('reports malformed YAML', async () => {
    const file = write('bad.yml', 'providers:\n\tbad: tab');
    const error = await configErrorOf(loadConfig({ cwd: dir, configPath: file, env: {} }));
    expect(error.source).toBe(file);
    expect(error.issues[0]?.message).toMatch(/^could not parse \(YAML\): /);
  });

  it('reports a JS config that throws', async () => {
    const file = write('gw.config.mjs', "throw new Error('boom');");
    const error = await configErrorOf(loadConfig({ cwd: dir, configPath: file, env: {} }));
    expect(error.source).toBe(file);
    expect(error.issues).toEqual([{ path: '', message: 'could not load: boom' }]);
  });

  it('reports an empty file', async () => {
    const file = write('empty.json', '  \n');
    const error = await configErrorOf(loadConfig({ cwd: dir, configPath: file, env: {} }));
    expect(error.issues).toEqual([{ path: '', message: 'config file is empty' }]);
  });

  it('reports a directory', async () => {
    mkdirSync(path.join(dir, 'adir'));
    const error = await configErrorOf(loadConfig({ cwd: dir, configPath: 'adir', env: {} }));
    expect(error.issues).toEqual([{ path: '', message: `not a file: ${path.join(dir, 'adir')}` }]);
  });

  it('sees changes to the file on reload', async () => {
    const file = write('gateway.config.json', json('before'));
    expect([...(await loadConfig({ cwd: dir, configPath: file, env: {} })).config.models.keys()]).toEqual(['before']);
    write('gateway.config.json', json('after'));
    expect([...(await loadConfig({ cwd: dir, configPath: file, env: {} })).config.models.keys()]).toEqual(['after']);
    expect([...(await loadConfig({ cwd: dir, env: {} })).config.models.keys()]).toEqual(['after']);
  });
});
