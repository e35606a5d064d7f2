/**
 * Who may see the inspector. The banner prints a link with a one-time token; opening
 * it sets an HTTP-only cookie holding a session secret, and from then on the cookie is
 * the only way in. A token works once. Only SHA-256 digests of tokens and sessions are
 * kept, and every comparison is constant-time over all of them.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface InspectorAuth {
  /** A new one-time token for the link. */
  issueToken(): string;
  /** Spends a token: a new session secret for the cookie, or undefined when the token is unknown or used. */
  redeem(token: string): string | undefined;
  isSession(secret: string | undefined): boolean;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time membership: compares against every digest, whether or not one already matched. */
function indexOf(digests: readonly Buffer[], candidate: string): number {
  const d = digest(candidate);
  let found = -1;
  for (let i = 0; i < digests.length; i++) {
    if (timingSafeEqual(digests[i]!, d)) found = i;
  }
  return found;
}

export function createAuth(): InspectorAuth {
  const tokens: Buffer[] = [];
  const sessions: Buffer[] = [];
  const secret = () => randomBytes(32).toString('base64url');
  return {
    issueToken() {
      const token = secret();
      tokens.push(digest(token));
      return token;
    },
    redeem(token) {
      const i = indexOf(tokens, token);
      if (i < 0) return undefined;
      tokens.splice(i, 1);
      const session = secret();
      sessions.push(digest(session));
      return session;
    },
    isSession(value) {
      return value !== undefined && value !== '' && indexOf(sessions, value) >= 0;
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

export function sessionCookie(name: string, value: string, path: string): string {
  return `${name}=${value}; HttpOnly; SameSite=Strict; Path=${path}`;
}
