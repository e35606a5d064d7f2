/** Secrets never reach a log: credential headers are replaced, long strings cut. */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'x-goog-api-key', 'api-key', 'cookie', 'set-cookie', 'proxy-authorization']);

export function redactHeaders(headers: IncomingHttpHeaders | OutgoingHttpHeaders): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value;
  }
  return out;
}

/** A copy of a JSON value with strings longer than `max` cut, so a 100 KB prompt stays one screen. */
export function truncateStrings(value: unknown, max: number): unknown {
  if (typeof value === 'string') {
    return value.length > max ? `${value.slice(0, max)}… (+${value.length - max} chars)` : value;
  }
  if (Array.isArray(value)) return value.map((v) => truncateStrings(v, max));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = truncateStrings(v, max);
    return out;
  }
  return value;
}
