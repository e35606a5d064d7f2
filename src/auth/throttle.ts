/**
 * Slows key guessing: after `authFailuresPerMinute` failed authentications (a missing or wrong
 * key) from one client address within a minute, that address's requests are answered 429 with
 * `retry-after` until the minute is over, without their key being checked.
 *
 * Without a check the answer (429) says nothing about the key, so a guesser learns nothing from
 * the requests past the limit. The one exception cannot help a guesser: a keep-alive connection
 * that has already authenticated, presenting the same key again, is admitted (see `rememberedKey`),
 * so the clients that were working keep working while a typo elsewhere on the same address
 * (every local process shares 127.0.0.1) has it throttled. A new connection with the right key
 * from a throttled address waits for the window like everyone else there: SDKs honour
 * `retry-after`, so they succeed on a retry.
 *
 * IPv6 clients are counted per /64, the block one host is usually given. The table of addresses
 * is bounded: past `capacity` the entry least recently started is forgotten.
 *
 * Gateways sharing a Redis (`state.redis`) also count each failure there (`share`, see
 * shared-throttle.ts), off the request path, and take the count of all of them back as their own:
 * a guesser spreading its tries over N gateways gets the limit's tries, plus at most one more on each
 * gateway that had not heard yet. A request whose key is right costs nothing of this.
 */
import type { IncomingMessage } from 'node:http';
import type { Config, GatewayKey } from '../config/types.js';
import { GatewayError, invalidRequest } from '../errors.js';
import { authenticate, rememberedKey, type KeyStyle } from './authenticate.js';

export const WINDOW_MS = 60_000;
/** Addresses tracked at once (each costs a few dozen bytes). */
export const MAX_TRACKED_ADDRESSES = 10_000;

interface Window {
  /** Epoch ms the window opened, at the address's first failure. */
  readonly start: number;
  failures: number;
}

export interface AuthThrottle {
  readonly windows: Map<string, Window>;
  readonly capacity: number;
  /** Tells the other gateways of a failure (and adopts what they counted); undefined: this gateway alone. */
  readonly share?: ShareFailure | undefined;
}

/** Counts a failure of `address` where every gateway sees it, and later adopts the total (`adoptFailures`). */
export type ShareFailure = (throttle: AuthThrottle, address: string, now: number) => void;

export function newAuthThrottle(capacity = MAX_TRACKED_ADDRESSES, share?: ShareFailure): AuthThrottle {
  return { windows: new Map(), capacity, share };
}

/** Milliseconds until `address` may be checked again; 0 when it is not throttled. */
export function waitMs(throttle: AuthThrottle, address: string, limit: number, now: number): number {
  const window = throttle.windows.get(address);
  if (!window) return 0;
  const left = window.start + WINDOW_MS - now;
  if (left <= 0) {
    throttle.windows.delete(address);
    return 0;
  }
  return window.failures >= limit ? left : 0;
}

export function noteFailure(throttle: AuthThrottle, address: string, now: number): void {
  const window = throttle.windows.get(address);
  if (window && window.start + WINDOW_MS > now) {
    window.failures++;
    return;
  }
  throttle.windows.delete(address);
  // Map order is insertion order: the first entry is the window opened longest ago.
  if (throttle.windows.size >= throttle.capacity) throttle.windows.delete(throttle.windows.keys().next().value!);
  throttle.windows.set(address, { start: now, failures: 1 });
}

/**
 * What all gateways counted for `address`: `failures` in a window with `leftMs` to run. Kept when it is
 * more than this gateway counted, so that the limit holds across them.
 */
export function adoptFailures(throttle: AuthThrottle, address: string, failures: number, leftMs: number, now: number): void {
  if (!(failures > 0 && leftMs > 0 && leftMs <= WINDOW_MS)) return;
  const window = throttle.windows.get(address);
  if (window && window.start + WINDOW_MS > now && window.failures >= failures) return;
  throttle.windows.delete(address);
  if (throttle.windows.size >= throttle.capacity) throttle.windows.delete(throttle.windows.keys().next().value!);
  throttle.windows.set(address, { start: now + leftMs - WINDOW_MS, failures });
}

/** The address failures are counted under: IPv4 as it is (IPv4-mapped IPv6 unwrapped), IPv6 by its /64. */
export function clientBlock(address: string | undefined): string {
  if (address === undefined) return '?';
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.split('::');
  const groups = head === '' ? [] : head.split(':');
  if (address.includes('::') && groups.length < 4) {
    const tailGroups = tail === '' ? [] : tail.split(':');
    const missing = 8 - groups.length - tailGroups.length;
    groups.push(...Array<string>(Math.max(0, missing)).fill('0'), ...tailGroups);
  }
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** The headers that carry a key, as the refusal names them; each may appear once. */
const KEY_HEADERS = ['Authorization', 'x-api-key', 'x-goog-api-key'] as const;

/**
 * A key header sent twice is ambiguous: Node keeps the first `Authorization` and joins repeated
 * `x-api-key` values, and a proxy in between may have read the other one. So is a `key` query
 * parameter given twice.
 */
export function refuseRepeatedKeys(rawHeaders: readonly string[], url: string | undefined): void {
  const seen = [0, 0, 0];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    // Lengths first: most headers are none of these, and are not lower-cased to find it out.
    for (let k = 0; k < KEY_HEADERS.length; k++) {
      if (name.length === KEY_HEADERS[k]!.length && name.toLowerCase() === KEY_HEADERS[k]!.toLowerCase()) seen[k]!++;
    }
  }
  const repeated = KEY_HEADERS.find((_, k) => seen[k]! > 1);
  if (repeated) throw invalidRequest(`The request carries more than one ${repeated} header; send the key once.`);
  const q = url === undefined ? -1 : url.indexOf('?');
  if (q !== -1 && new URLSearchParams(url!.slice(q + 1)).getAll('key').length > 1) {
    throw invalidRequest('The request carries more than one `key` query parameter; send the key once.', 'key');
  }
}

/** `authenticate`, counting failures per client address and refusing addresses past the limit (see above). */
export function authenticateThrottled(
  throttle: AuthThrottle,
  config: Config,
  req: IncomingMessage,
  style: KeyStyle,
  now = Date.now(),
): GatewayKey {
  refuseRepeatedKeys(req.rawHeaders, req.url);
  const address = clientBlock(req.socket.remoteAddress);
  const wait = waitMs(throttle, address, config.server.authFailuresPerMinute, now);
  if (wait > 0) {
    const known = rememberedKey(config, req, style, req.socket);
    if (known) return known;
    throw tooManyFailures(wait);
  }
  try {
    return authenticate(config, req, style, req.socket);
  } catch (err) {
    if (err instanceof GatewayError && err.kind === 'authentication') {
      noteFailure(throttle, address, now);
      throttle.share?.(throttle, address, now);
    }
    throw err;
  }
}

function tooManyFailures(wait: number): GatewayError {
  const seconds = Math.max(1, Math.ceil(wait / 1000));
  return new GatewayError(
    'rate_limit',
    `Too many requests with a missing or wrong API key from this address; the key is not checked for ${seconds}s.`,
    { code: 'too_many_authentication_failures', headers: { 'retry-after': String(seconds), 'retry-after-ms': String(Math.ceil(wait)) } },
  );
}
