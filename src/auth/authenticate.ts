/**
 * Finds the caller's key in the request headers and looks it up.
 *
 * Keys are never held in clear: the config keeps sha256 digests, and a request's
 * key is hashed before the lookup. The map lookup compares digests, not keys, so
 * its timing says nothing useful about any real key; the final comparison of
 * the two digests uses timingSafeEqual all the same. A connection remembers the key it
 * last authenticated with (see `authenticate`).
 */
import { hash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Config, GatewayKey } from '../config/types.js';
import { authenticationFailed } from '../errors.js';
import type { KeyStyle } from '../protocols/types.js';

export type { KeyStyle };

/**
 * Trims the space and tab HTTP allows around a value, nothing else: `String.prototype.trim` also
 * strips U+00A0, U+2028, U+FEFF and other Unicode spaces, which would make `key\u00a0` the same key as `key`.
 */
export function trimHttpSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text.charCodeAt(start) === 0x20 || text.charCodeAt(start) === 0x09)) start++;
  while (end > start && (text.charCodeAt(end - 1) === 0x20 || text.charCodeAt(end - 1) === 0x09)) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** What a key is read from: the headers, and (Google's `key` parameter) the URL. An IncomingMessage is one. */
export interface KeyedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly url?: string | undefined;
}

/**
 * Google's `key` query parameter; undefined when absent or empty. Only the first `?` starts the
 * query, and `+` and percent escapes read as URLSearchParams reads them.
 */
export function queryKey(url: string | undefined): string | undefined {
  const q = url === undefined ? -1 : url.indexOf('?');
  if (q === -1) return undefined;
  const keys = new URLSearchParams(url!.slice(q + 1)).getAll('key');
  // Sent twice, the key is ambiguous (refuseRepeatedKeys, throttle.ts, refuses it first).
  const key = keys[0];
  return key === undefined || key === '' ? undefined : key;
}

/**
 * The style's own place first, then `Authorization: Bearer` (docs/protocols.md, "Keys"): Anthropic's
 * `x-api-key` (what Anthropic does when both arrive); Google's `x-goog-api-key` header, then its
 * `key` query parameter (the header first, as Google reads them).
 */
export function extractKey(req: KeyedRequest, style: KeyStyle): string | undefined {
  const { headers } = req;
  if (style === 'anthropic') {
    const apiKey = headers['x-api-key'];
    if (typeof apiKey === 'string' && apiKey !== '') return trimHttpSpace(apiKey);
  }
  if (style === 'google') {
    const apiKey = headers['x-goog-api-key'];
    if (typeof apiKey === 'string' && apiKey !== '') return trimHttpSpace(apiKey);
    const inQuery = queryKey(req.url);
    if (inQuery !== undefined) return inQuery;
  }
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    // What every SDK sends, without a regular expression's match array.
    if (auth.startsWith('Bearer ') && auth.charCodeAt(7) > 0x20) {
      const key = trimHttpSpace(auth.slice(7));
      if (key !== '') return key;
    }
    const match = /^Bearer[ \t]+(.+)$/i.exec(trimHttpSpace(auth));
    if (match?.[1]) return trimHttpSpace(match[1]);
  }
  return undefined;
}

// The one-shot hash makes no Hash object, which for a key-sized input is most of createHash's cost.
// (Its 'buffer' output is slower than 'hex' on Node 20, so the digests are compared as hex text.)
export const digestKey = (key: string): string => hash('sha256', key, 'hex');

/** Each configured key's hex digest as bytes, made once rather than per request (keys live as long as their config). */
const digestBytes = new WeakMap<GatewayKey, Buffer>();

function bytesOf(key: GatewayKey): Buffer {
  let bytes = digestBytes.get(key);
  if (bytes === undefined) {
    bytes = Buffer.from(key.digest, 'latin1');
    digestBytes.set(key, bytes);
  }
  return bytes;
}

const MISSING = {
  bearer: 'Missing API key. Send it as `Authorization: Bearer <key>`.',
  anthropic: 'Missing API key. Send it in the `x-api-key` header or as `Authorization: Bearer <key>`.',
  google: 'Missing API key. Send it in the `x-goog-api-key` header or as the `key` query parameter.',
} as const satisfies Record<KeyStyle, string>;

/** The key a connection last authenticated with, and the config it was found in. */
interface ConnectionKey {
  readonly config: Config;
  readonly presented: string;
  readonly key: GatewayKey;
}
const byConnection = new WeakMap<object, ConnectionKey>();

/**
 * The caller's key. `connection` (the request's socket) remembers the key it last authenticated
 * with under this config: SDKs keep their connections alive and send the same key on each
 * request, which then costs a comparison rather than a sha256 (which, cold after the idle time
 * between an assistant's requests, adds to the request's latency). The
 * comparison is constant-time too: a connection shared by several callers (a proxy in front)
 * must not let one learn another's key from how long a wrong guess takes. A reload makes a new
 * Config, so a key removed from it is checked again.
 */
export function authenticate(config: Config, req: KeyedRequest, style: KeyStyle, connection?: object): GatewayKey {
  const key = extractKey(req, style);
  if (key === undefined) throw authenticationFailed(MISSING[style]);
  const last = connection && byConnection.get(connection);
  if (last && last.config === config && sameText(last.presented, key)) return last.key;
  const digest = digestKey(key);
  const found = config.keys.get(digest);
  const expected = found && bytesOf(found);
  if (!expected || expected.length !== digest.length || !timingSafeEqual(expected, Buffer.from(digest, 'latin1'))) {
    throw authenticationFailed('Invalid API key: it belongs to no key group of this gateway.');
  }
  if (connection) byConnection.set(connection, { config, presented: key, key: found });
  return found;
}

/**
 * The key `connection` already authenticated with under `config`, when the request presents that
 * same key; undefined otherwise. Proves nothing new about any key: only a caller who sent the
 * key before, on this connection, gets an answer.
 */
export function rememberedKey(config: Config, req: KeyedRequest, style: KeyStyle, connection: object): GatewayKey | undefined {
  const last = byConnection.get(connection);
  if (!last || last.config !== config) return undefined;
  const key = extractKey(req, style);
  return key !== undefined && sameText(last.presented, key) ? last.key : undefined;
}

/** Whether two strings are equal, in time that depends on their length only. */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
