import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { linkKeyFile, linkKeyPorts } from './link-key.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A data folder whose inspector folder holds files of these names (no inspector folder for undefined). */
function dataDir(names: readonly string[] | undefined): string {
  const data = mkdtempSync(join(tmpdir(), 'mgw-link-keys-'));
  dirs.push(data);
  if (names === undefined) return data;
  mkdirSync(join(data, 'inspector'));
  for (const name of names) writeFileSync(join(data, 'inspector', name), 'x');
  return data;
}

describe('the ports of the link keys in a data folder', () => {
  it.each([
    ['a folder without an inspector folder', undefined, []],
    ['an empty inspector folder', [], []],
    ['keys, listed in port order', ['link-8080.key', 'link-443.key', 'link-4000.key'], [443, 4000, 8080]],
    [
      'names that are not a port’s key, passed over',
      ['link-0.key', 'link-65536.key', 'link-123456.key', 'link-abc.key', 'link-80.key.bak', 'link-.key', 'link--1.key', 'other.txt', 'link-81.key'],
      [81],
    ],
  ] as const)('%s', (_, names, ports) => {
    expect(linkKeyPorts(dataDir(names))).toEqual(ports);
  });

  it('names the file linkKeyFile writes for a port', () => {
    const data = dataDir([]);
    writeFileSync(linkKeyFile(data, 5173), 'x');
    expect(linkKeyPorts(data)).toEqual([5173]);
  });

  it('asks at most 32 ports, the lowest, however many keys a folder holds', () => {
    const data = dataDir(Array.from({ length: 100 }, (_, i) => `link-${60000 - i * 7}.key`));
    const ports = linkKeyPorts(data);
    expect(ports).toHaveLength(32);
    expect(ports[0]).toBe(60000 - 99 * 7);
    expect(ports).toEqual([...ports].sort((a, b) => a - b));
    expect(ports[31]).toBe(60000 - 68 * 7);
  });
});
