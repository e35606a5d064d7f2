/**
 * The request to send again for a recorded exchange: its method, path, body and
 * headers, minus what belongs to the old connection, plus the key. Recordings
 * hold no keys (credential headers are redacted), so the key is given, and goes
 * in whichever header the recorded client used.
 *
 * A recording is untrusted input, and this request carries the user's key: an exchange
 * whose method, path or headers could make it anything but a request to the gateway
 * (another host, a smuggled header or request line) is refused, never sent.
 */
import type { ExchangeJson } from '../log/exchange-json.js';
import { replayUrl, type ReplayTarget } from './target.js';
import { HTTP_TOKEN as TOKEN } from '../protocols/http-token.js';

export interface ReplayRequest {
  readonly method: string;
  /** The target's origin, under its prefix: see `replayUrl`. */
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

export interface ReplayOptions {
  /** Replaces the body's `model`. */
  readonly model?: string;
  readonly key?: string;
}

/** Headers that carry a key, and how each is written. */
const CREDENTIALS: Readonly<Record<string, (key: string) => string>> = {
  authorization: (key) => `Bearer ${key}`,
  'x-api-key': (key) => key,
  'x-goog-api-key': (key) => key,
  'api-key': (key) => key,
};

/**
 * Not sent again: hop-by-hop headers, those undici derives from the new request (host, length),
 * cookies, accept-encoding (undici's `request` does not decompress, so ask for none), and the
 * browser's origin headers: the gateway refuses a foreign Origin, and a replay is no page's request.
 */
const NOT_RESENT = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'content-length',
  'accept-encoding',
  'cookie',
  'proxy-authorization',
  'origin',
  'referer',
]);

/** The credential headers the recorded client sent (by name only: their values were redacted). */
export function credentialHeaders(exchange: ExchangeJson): string[] {
  return Object.keys(exchange.request?.headers ?? {}).filter((name) => name.toLowerCase() in CREDENTIALS);
}

/** The methods the gateway serves (`pipeline/endpoints.ts`): nothing else is worth sending it. */
const REPLAYED_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST']);
/** An RFC 9110 field value: visible characters, spaces and tabs, and bytes 0x80–0xFF (no CR, LF, NUL or other control). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.map(String).join(', ');
  return undefined;
}

/** Why the recorded method or headers could be more than a request to the gateway, or undefined. Never quotes them. */
function refusal(exchange: ExchangeJson): string | undefined {
  if (!TOKEN.test(exchange.method)) return 'its method is not an HTTP method name';
  if (!REPLAYED_METHODS.has(exchange.method)) return `its method ${exchange.method} is not one the gateway serves (${[...REPLAYED_METHODS].join(', ')})`;
  for (const [name, value] of Object.entries(exchange.request?.headers ?? {})) {
    if (!TOKEN.test(name)) return 'a recorded header name is not an HTTP token';
    const text = headerText(value);
    if (text !== undefined && !FIELD_VALUE.test(text)) return 'a recorded header value holds a line break, NUL or other control character';
  }
  return undefined;
}

/**
 * The request to send to `target`, or why this exchange cannot be sent again as it was
 * (`skip`), or why it must not be sent at all (`refuse`).
 */
export function replayRequest(
  exchange: ExchangeJson,
  target: ReplayTarget,
  options: ReplayOptions = {},
): { request: ReplayRequest } | { skip: string } | { refuse: string } {
  const refused = refusal(exchange);
  if (refused !== undefined) return { refuse: refused };
  const where = replayUrl(target, exchange.path);
  if ('refuse' in where) return where;

  const recorded = exchange.request;
  if (!recorded) return { skip: 'the request was not captured' };
  const body = recorded.body;
  if (body.truncated) return { skip: `its body was cut at the capture limit (${body.bytes} bytes kept)` };
  const hasBody = body.json !== undefined || body.text !== undefined;
  if (!hasBody && exchange.method !== 'GET' && exchange.method !== 'HEAD') {
    // The gateway reads a body only after the key and headers pass, so a refused request has none recorded.
    return { skip: `its body was not recorded (refused with ${exchange.status ?? 'no status'} before it was read)` };
  }

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(recorded.headers)) {
    const lower = name.toLowerCase();
    if (NOT_RESENT.has(lower)) continue;
    const credential = CREDENTIALS[lower];
    if (credential) {
      if (options.key !== undefined) headers[lower] = credential(options.key);
      continue;
    }
    const text = headerText(value);
    if (text !== undefined) headers[lower] = text;
  }

  let text: string | undefined;
  if (body.json !== undefined) {
    const json = body.json;
    const isObject = typeof json === 'object' && json !== null && !Array.isArray(json);
    text = JSON.stringify(options.model !== undefined && isObject ? { ...json, model: options.model } : json);
  } else if (body.text !== undefined) {
    text = body.text;
  }
  return { request: { method: exchange.method, url: where.url, headers, ...(text !== undefined ? { body: text } : {}) } };
}
