/**
 * A fresh inspector link from a running gateway, without a restart (`model-gateway status --link`).
 *
 * At start `serve` draws a random link key and writes it to `<dataDir>/inspector/link-<port>.key`,
 * readable by the user who runs it only (the folder 0700, the file 0600); it removes the file when it
 * stops. Whoever can read that file may ask the gateway for a one-time link: a POST to
 * `/_inspector/link` with the key as a bearer token, from a loopback address. The key is what proves
 * the asker is the local user: a gateway key, however privileged, is not enough, and a caller on the
 * network is refused whatever it sends. The file is read as hostile (small, the key's own alphabet).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Under the inspector's prefix, and whole (for `status`, which does not load the inspector). */
export const LINK_PATH = '/link';
export const LINK_URL_PATH = '/_inspector/link';

/** The link key of the gateway listening on `port`, in the data folder. */
export const linkKeyFile = (dataDir: string, port: number): string => join(dataDir, 'inspector', `link-${port}.key`);

const KEY_FILE = /^link-(\d{1,5})\.key$/;
/** Ports asked at most: the lowest, when the folder holds more keys than this. */
const MAX_PORTS = 32;

/**
 * The ports of the link keys in the data folder, in order: of gateways running with the inspector, or
 * left by one that was killed (`status` finds out which by asking each).
 */
export function linkKeyPorts(dataDir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(join(dataDir, 'inspector'));
  } catch {
    return [];
  }
  const ports = names.map((name) => Number(KEY_FILE.exec(name)?.[1])).filter((port) => Number.isInteger(port) && port > 0 && port < 65536);
  return ports.sort((a, b) => a - b).slice(0, MAX_PORTS);
}

export const newLinkKey = (): string => randomBytes(32).toString('base64url');

const KEY_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Written for the user only; throws when the data folder cannot hold it. */
export function writeLinkKey(file: string, key: string): void {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  // A file left by an earlier run keeps its mode through writeFileSync.
  chmodSync(file, 0o600);
}

/** The key in `file`, or undefined when there is none or it is not one. */
export function readLinkKey(file: string): string | undefined {
  try {
    const text = readFileSync(file, 'utf8');
    if (text.length > 256) return undefined;
    const key = text.trim();
    return KEY_SHAPE.test(key) ? key : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the file if it still holds `key` (a newer gateway's on the same port is left alone). */
export function clearLinkKey(file: string, key: string): void {
  if (readLinkKey(file) === key) rmSync(file, { force: true });
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Whether an `authorization` header carries `key` as a bearer token, compared in constant time. */
export function linkKeyMatcher(key: string): (authorization: string | undefined) => boolean {
  const expected = digest(key);
  return (authorization) => {
    if (authorization === undefined || !authorization.startsWith('Bearer ')) return false;
    return timingSafeEqual(expected, digest(authorization.slice('Bearer '.length)));
  };
}

/** A fresh link's path as the gateway answers it: the page with a token of the link's alphabet. */
export const LINK_ANSWER = /^\/_inspector\/\?token=[A-Za-z0-9_-]{43}$/;
