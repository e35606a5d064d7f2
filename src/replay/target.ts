/**
 * Where a replayed request goes. A recording is untrusted input, and replay adds the user's
 * key to what it sends, so a recorded path must not be able to choose the host: it is never
 * joined to the base URL as text (`@other-host/…` would make the base's host a user name),
 * but set as the path of a copy of the base URL, and only a plain gateway path is accepted at
 * all. Whatever the recorded path, the request goes to the base URL's origin, under its path.
 */
import { ExitError } from '../errors.js';

/** The gateway replay sends to: an http(s) origin and a path prefix ('' or '/prefix', no trailing slash). */
export interface ReplayTarget {
  readonly origin: string;
  readonly prefix: string;
}

/** For messages: `http://127.0.0.1:8787`, `https://gw.example/prefix`. */
export const shownTarget = (t: ReplayTarget): string => `${t.origin}${t.prefix}`;

/**
 * The target a base URL names, with or without `/v1` (every recorded path starts with it).
 * `flag` names where the URL came from in errors (a usage error, exit 2).
 */
export function replayTarget(url: string, flag = '--to'): ReplayTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ExitError(`${flag}: "${url}" is not a URL (expected e.g. http://127.0.0.1:8787).`, 2);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ExitError(`${flag}: expected http:// or https://, got "${url}".`, 2);
  // The key goes in its own header; a user name or password in the URL would be sent as well, as Basic auth.
  if (parsed.username !== '' || parsed.password !== '') {
    throw new ExitError(`${flag}: a URL with a user name or password is not accepted; the key goes in --key.`, 2);
  }
  if (parsed.search !== '' || parsed.hash !== '') throw new ExitError(`${flag}: expected a base URL without ? or #, got "${url}".`, 2);
  return { origin: parsed.origin, prefix: parsed.pathname.replace(/\/+$/, '').replace(/\/v1$/, '') };
}

/** What a gateway path is made of: RFC 3986 path characters, less `@` (never in a gateway path) and `\`. */
const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:/%]*$/;
/** Characters an escape may stand for: those that mean nothing special in a path (`/`, `.`, `%`, `\\`, `@`, controls do). */
const PLAIN_ESCAPED = /^[A-Za-z0-9\-_~!$&'()*+,;=:]$/;

/** A `%XX` escape of a non-ASCII byte (UTF-8 text), or of a character that means nothing special. */
function plainEscape(percent: string): boolean {
  if (!/^%[0-9A-Fa-f]{2}$/.test(percent)) return false;
  const byte = Number.parseInt(percent.slice(1), 16);
  return byte >= 0x80 || PLAIN_ESCAPED.test(String.fromCharCode(byte));
}

/** Why a recorded path is refused, or undefined when it is a plain path. Never quotes the path. */
function pathProblem(path: string): string | undefined {
  if (!path.startsWith('/') || path.startsWith('//')) return 'it does not start with a single /';
  if (!PATH_CHARS.test(path)) return 'it holds characters no gateway path has (whitespace, controls, \\, @, ?, #, non-ASCII)';
  if (path.includes('//')) return 'it holds an empty segment (//)';
  const segments = path.split('/');
  if (segments.some((s) => s === '.' || s === '..')) return 'it holds a . or .. segment';
  for (const percent of path.match(/%.{0,2}/g) ?? []) {
    if (!plainEscape(percent)) return 'it holds a percent-escape of a character that changes what a path means (/, \\, ., @, %, controls, whitespace)';
  }
  return undefined;
}

/** The URL to send `path` to, or why it is refused. */
export function replayUrl(target: ReplayTarget, path: string): { url: URL } | { refuse: string } {
  const problem = pathProblem(path);
  if (problem !== undefined) return { refuse: `its path is not a plain gateway path: ${problem}` };
  const url = new URL(target.origin);
  url.pathname = `${target.prefix}${path}`;
  // The checks above leave the parser nothing to change; were that ever wrong, refuse rather than send elsewhere.
  if (url.origin !== target.origin || url.pathname !== `${target.prefix}${path}` || url.search !== '' || url.hash !== '') {
    return { refuse: 'its path does not stay under the base URL' };
  }
  return { url };
}
