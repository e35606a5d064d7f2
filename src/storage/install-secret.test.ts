import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataDir } from './data-dir.js';
import { loadInstallSecret } from './install-secret.js';

const scratch = () => mkdtempSync(join(tmpdir(), 'mg-secret-'));

describe('the install secret', () => {
  it('is made once, readable by its owner only, and read back the same by the next run', () => {
    const dir = join(scratch(), 'nested', 'data');
    const first = loadInstallSecret(dir);
    expect(first.kind).toBe('kept');
    expect(first.key).toHaveLength(32);
    expect(statSync(join(dir, 'secret')).mode & 0o777).toBe(0o600);
    expect(loadInstallSecret(dir).key.equals(first.key)).toBe(true);
  });

  it('refuses a damaged file rather than replacing it, and runs on a key of its own', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'secret'), 'not hex\n');
    const loaded = loadInstallSecret(dir);
    expect(loaded).toMatchObject({ kind: 'ephemeral', why: expect.stringContaining('remove it to make a new one') });
    expect(readFileSync(join(dir, 'secret'), 'utf8')).toBe('not hex\n');
  });

  it('runs on a key of its own where the folder cannot be made', () => {
    // A path through a file: no one, root included, can make a folder there.
    const file = join(scratch(), 'a-file');
    writeFileSync(file, '');
    expect(loadInstallSecret(join(file, 'inner'))).toMatchObject({ kind: 'ephemeral', key: expect.any(Buffer) });
  });
});

describe('the data folder', () => {
  const base = { env: {}, platform: 'linux' as const, home: '/home/ada' };
  it.each([
    ['the config wins', { ...base, configured: '/srv/mg', env: { MODEL_GATEWAY_DATA_DIR: '/env/mg' } }, '/srv/mg'],
    ['then the environment', { ...base, env: { MODEL_GATEWAY_DATA_DIR: '/env/mg' } }, '/env/mg'],
    ['XDG on Linux', { ...base, env: { XDG_DATA_HOME: '/xdg' } }, '/xdg/model-gateway'],
    ['a relative XDG_DATA_HOME is ignored', { ...base, env: { XDG_DATA_HOME: 'rel' } }, '/home/ada/.local/share/model-gateway'],
    ['macOS', { ...base, platform: 'darwin' as const }, '/home/ada/Library/Application Support/model-gateway'],
  ])('%s', (_name, sources, expected) => {
    expect(dataDir(sources)).toBe(expected);
  });
});
