/**
 * Gateway keys as the config holds them: only sha256 digests. A plain key written in the
 * file is hashed here and the plain text goes no further.
 */
import { createHash, randomBytes } from 'node:crypto';

/** `sha256:` followed by 64 hex digits, either case. */
export const SHA256_KEY = /^sha256:([0-9a-f]{64})$/i;
const SHA256_PREFIX = /^sha256:/i;

/** Lowercase hex sha256 of a plain key (what clients send). */
export function hashKey(plain: string): string {
  return createHash('sha256').update(plain, 'utf8').digest('hex');
}

/** True for a plain key or a well-formed `sha256:<64 hex>`; false for a malformed digest. */
export function isWellFormedKey(written: string): boolean {
  return !SHA256_PREFIX.test(written) || SHA256_KEY.test(written);
}

/** The digest a written key stands for: the given digest (lowercased) or the hash of a plain key. */
export function keyDigest(written: string): string {
  const match = SHA256_KEY.exec(written);
  return match?.[1] ? match[1].toLowerCase() : hashKey(written);
}

/** The short, non-secret id used in logs. */
export function keyId(digest: string): string {
  return digest.slice(0, 8);
}

/** A new random key: `mgw-` + 32 random bytes, base64url. */
export function generateKey(): string {
  return `mgw-${randomBytes(32).toString('base64url')}`;
}
