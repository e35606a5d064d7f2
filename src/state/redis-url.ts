/**
 * The Redis URL of `state.redis`: what the config accepts, and how it is shown. The URL may carry
 * a password (`redis://user:secret@host:6379/0`), so it is shown only with the password masked.
 */

/**
 * A `redis://` or `rediss://` (TLS) URL with a host, and without a query: the client would take
 * a query's parameters as its options, over the gateway's own (its command timeout among them).
 */
export function isRedisUrl(text: string): boolean {
  const url = parsed(text);
  return url !== undefined && (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '' && url.search === '' && url.hash === '';
}

/** The URL as it may be printed: its password replaced by `***`, nothing else changed. */
export function shownRedisUrl(text: string): string {
  const url = parsed(text);
  if (url === undefined) return '(not a URL)';
  if (url.password !== '') url.password = '***';
  return url.href;
}

/** The URL as the client is given it: the scheme lower-cased (the client tells TLS by a lower-case `rediss://`). */
export function normalRedisUrl(text: string): string {
  return parsed(text)?.href ?? text;
}

function parsed(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
