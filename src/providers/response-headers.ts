/**
 * Which upstream response headers reach the client: content type, request ids, retry and rate-limit hints.
 * Not `content-encoding`: the transport decodes what an upstream compressed (decode-answer.ts), and the
 * gateway sends the client what it read, so the client gets the answer uncompressed.
 */

const EXACT = new Set([
  'content-type',
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
