/**
 * Which upstream response headers reach the client (content type, request ids, retry and rate-limit hints), and
 * the pause a retry hint asks for.
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
    if (EXACT.has(name) || hasPrefix(name)) {
      out[name] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return out;
}

/** A loop rather than `PREFIXES.some` with an arrow over `name`: that is a closure per header of every answer. */
function hasPrefix(name: string): boolean {
  for (const p of PREFIXES) if (name.startsWith(p)) return true;
  return false;
}

/** The pause the server asked for, in ms: `retry-after-ms`, else `retry-after` as seconds or an HTTP date. */
export function retryAfterMs(headers: Readonly<Record<string, string | string[] | undefined>> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const ms = Number.parseFloat(first(headers['retry-after-ms']) ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = first(headers['retry-after'])?.trim();
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
