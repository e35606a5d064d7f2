/**
 * Upstream URLs are built with the URL API, one path segment at a time, each percent-encoded:
 * a model name or a deployment taken from a request can then not add a segment, a query or
 * a fragment of its own.
 */
import { protocols } from '../protocols/registry.js';
import type { Operation, Protocol } from '../protocols/types.js';

/** `base` with `segments` appended to its path (its query and fragment dropped). */
export function urlUnder(base: string | URL, ...segments: readonly string[]): URL {
  const url = new URL(base);
  url.search = '';
  url.hash = '';
  // The URL parser reads "." and ".." (even percent-encoded) as moves up the path, which no name may make.
  for (const s of segments) {
    if (s === '' || /^(\.|%2e){1,2}$/i.test(s)) throw new RangeError(`"${s}" cannot be a URL path segment`);
  }
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${segments.map(encodeURIComponent).join('/')}`;
  return url;
}

/** Where each protocol's call lives under an OpenAI-style base URL (one ending in /v1), as path segments. */
export function protocolPath(protocol: Protocol, operation: Operation): readonly string[] {
  const path = protocols[protocol].upstreamPath(operation);
  // Routing sends an operation only to a protocol that offers it.
  if (path === undefined) throw new RangeError(`the ${protocol} protocol has no ${operation} call`);
  return path;
}
