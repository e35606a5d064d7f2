/**
 * Who may see the inspector. The banner prints a link with a one-time token; opening
 * it sets an HTTP-only cookie holding a session secret, and from then on the cookie is
 * the only way in. A token works once. Only SHA-256 digests of tokens and sessions are
 * kept, and every comparison is constant-time over all of them.
 *
 * Nothing lets in forever. A session ends after `sessionIdleMs` without a request (an open
 * page's event stream counts: it is asked about at each heartbeat) and `sessionMaxMs` after
 * it began, however busy. A token ends when spent or `sessionMaxMs` after it was issued: the
 * banner's link is the only way in, so it must still work when opened hours after the start,
 * but not for longer than the session it would open. At most MAX_KEPT tokens and MAX_KEPT
 * sessions are kept; a new one pushes out the oldest.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface InspectorAuth {
  /** A new one-time token for the link. */
  issueToken(): string;
  /** Spends a token: a new session secret for the cookie, or undefined when the token is unknown, used or expired. */
  redeem(token: string): string | undefined;
  /** Whether `secret` is a live session; asking counts as using it. */
  isSession(secret: string | undefined): boolean;
}

export interface AuthOptions {
  /** How long a session lasts without use (`--inspector-session-idle`). */
  readonly sessionIdleMs?: number;
  /** How long a session lasts at most, and a token unspent (`--inspector-session-max`). */
  readonly sessionMaxMs?: number;
  /** The clock, in milliseconds; tests pass their own. */
  readonly now?: () => number;
}

const HOUR_MS = 60 * 60 * 1000;
export const DEFAULT_SESSION_IDLE_HOURS = 24;
export const DEFAULT_SESSION_MAX_HOURS = 7 * 24;
/** Each start issues one token; the bound is for the sessions a stolen or shared link could pile up. */
export const MAX_KEPT = 16;

interface Entry {
  readonly digest: Buffer;
  readonly since: number;
  lastUsed: number;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time membership: compares against every digest, whether or not one already matched. */
function indexOf(entries: readonly Entry[], candidate: string): number {
  const d = digest(candidate);
  let found = -1;
  for (let i = 0; i < entries.length; i++) {
    if (timingSafeEqual(entries[i]!.digest, d)) found = i;
  }
  return found;
}

export function createAuth(options: AuthOptions = {}): InspectorAuth {
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_HOURS * HOUR_MS;
  const maxMs = options.sessionMaxMs ?? DEFAULT_SESSION_MAX_HOURS * HOUR_MS;
  const now = options.now ?? Date.now;
  const tokens: Entry[] = [];
  const sessions: Entry[] = [];
  const secret = () => randomBytes(32).toString('base64url');

  const live = (e: Entry, t: number, idle: number) => t - e.since < maxMs && t - e.lastUsed < idle;
  /** Drops what has expired, then the oldest past the bound, so a list never outgrows MAX_KEPT. */
  const prune = (entries: Entry[], idle: number) => {
    const t = now();
    for (let i = entries.length - 1; i >= 0; i--) if (!live(entries[i]!, t, idle)) entries.splice(i, 1);
    while (entries.length >= MAX_KEPT) {
      let oldest = 0;
      for (let i = 1; i < entries.length; i++) if (entries[i]!.lastUsed < entries[oldest]!.lastUsed) oldest = i;
      entries.splice(oldest, 1);
    }
  };
  const add = (entries: Entry[], idle: number, value: string) => {
    prune(entries, idle);
    const t = now();
    entries.push({ digest: digest(value), since: t, lastUsed: t });
    return value;
  };

  return {
    issueToken: () => add(tokens, Infinity, secret()),
    redeem(token) {
      const i = indexOf(tokens, token);
      if (i < 0) return undefined;
      const [entry] = tokens.splice(i, 1);
      if (!live(entry!, now(), Infinity)) return undefined;
      return add(sessions, idleMs, secret());
    },
    isSession(value) {
      if (value === undefined || value === '') return false;
      const i = indexOf(sessions, value);
      if (i < 0) return false;
      const entry = sessions[i]!;
      const t = now();
      if (!live(entry, t, idleMs)) {
        sessions.splice(i, 1);
        return false;
      }
      entry.lastUsed = t;
      return true;
    },
  };
}

/** The cookie's name carries the port: two gateways on one host (cookies ignore ports) keep their own. */
export const cookieName = (port: number | undefined) => `mgw_inspector_${port ?? 0}`;

export function readCookie(headers: IncomingHttpHeaders, name: string): string | undefined {
  const header = headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** No Max-Age: a browser session cookie, gone when the browser closes; the gateway ends the session too. */
export function sessionCookie(name: string, value: string, path: string): string {
  return `${name}=${value}; HttpOnly; SameSite=Strict; Path=${path}`;
}
