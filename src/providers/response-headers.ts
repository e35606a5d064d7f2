/** Which upstream response headers reach the client: content type, request ids, retry and rate-limit hints. */

const EXACT = new Set([
  'content-type',
  // Bodies pass through as bytes, so an encoding the upstream chose must be declared to the client too.
  'content-encoding',
  'retry-after',
  'retry-after-ms',
  'x-should-retry',
  'x-request-id',
  'request-id',
  'openai-processing-ms',
]);
const PREFIXES = ['x-ratelimit-', 'anthropic-ratelimit-'];

export function passBackHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (EXACT.has(name) || PREFIXES.some((p) => name.startsWith(p))) {
      out[name] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return out;
}
