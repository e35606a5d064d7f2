import { describe, expect, it } from 'vitest';
import { cookieName, createAuth, readCookie, sessionCookie } from './auth.js';

describe('inspector auth', () => {
  it('turns a token into a session once; a second use, an unknown token or an empty one gets nothing', () => {
    const auth = createAuth();
    const token = auth.issueToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const session = auth.redeem(token);
    expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session).not.toBe(token);
    expect(auth.redeem(token)).toBeUndefined();
    expect(auth.redeem('nope')).toBeUndefined();
    expect(auth.redeem('')).toBeUndefined();
  });

  it('accepts the sessions it gave out and nothing else (a token is not a session)', () => {
    const auth = createAuth();
    const t1 = auth.issueToken();
    const t2 = auth.issueToken();
    const s1 = auth.redeem(t1)!;
    expect(auth.isSession(s1)).toBe(true);
    expect(auth.isSession(t2)).toBe(false);
    expect(auth.isSession(s1.slice(0, -1))).toBe(false);
    expect(auth.isSession(undefined)).toBe(false);
    expect(auth.isSession('')).toBe(false);
    const s2 = auth.redeem(t2)!;
    expect(auth.isSession(s1) && auth.isSession(s2)).toBe(true);
    // Another inspector's sessions mean nothing here.
    expect(createAuth().isSession(s1)).toBe(false);
  });

  it('writes an HTTP-only, same-site-strict cookie for the inspector path, named per port', () => {
    expect(cookieName(8787)).toBe('mgw_inspector_8787');
    expect(sessionCookie('mgw_inspector_8787', 'abc', '/_inspector')).toBe('mgw_inspector_8787=abc; HttpOnly; SameSite=Strict; Path=/_inspector');
  });

  it('finds its cookie among others', () => {
    expect(readCookie({ cookie: 'a=1; mgw_inspector_1=xyz; b=2' }, 'mgw_inspector_1')).toBe('xyz');
    expect(readCookie({ cookie: 'mgw_inspector_10=no' }, 'mgw_inspector_1')).toBeUndefined();
    expect(readCookie({}, 'mgw_inspector_1')).toBeUndefined();
  });
});
