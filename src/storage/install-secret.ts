/**
 * The install's secret: 32 random bytes in `<dataDir>/secret`, made on first use, readable by
 * its owner only. It keys what the gateway signs for itself (reasoning seals), so that what it
 * signed before a restart still opens after one. Kept out of the config, which people share.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const BYTES = 32;
const HEX = /^[0-9a-f]{64}$/;

export type InstallSecret =
  | { readonly kind: 'kept'; readonly key: Buffer; readonly file: string }
  /** The folder could not hold it: this run signs with a key of its own, which a restart loses. */
  | { readonly kind: 'ephemeral'; readonly key: Buffer; readonly file: string; readonly why: string };

export function loadInstallSecret(dir: string): InstallSecret {
  const file = join(dir, 'secret');
  try {
    return { kind: 'kept', key: readOrCreate(file, dir), file };
  } catch (err) {
    return { kind: 'ephemeral', key: randomBytes(BYTES), file, why: (err as Error).message };
  }
}

function readOrCreate(file: string, dir: string): Buffer {
  const existing = readKey(file);
  if (existing) return existing;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    // `wx`: two gateways starting at once make one secret; the second reads the first's.
    writeFileSync(file, `${randomBytes(BYTES).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const made = readKey(file);
  if (!made) throw new Error(`${file} does not hold a secret (64 hex digits)`);
  return made;
}

function readKey(file: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (!HEX.test(text)) throw new Error(`${file} does not hold a secret (64 hex digits); remove it to make a new one`);
  return Buffer.from(text, 'hex');
}
