import { describe, expect, it } from 'vitest';
import { cookieName, createAuth, DEFAULT_SESSION_MAX_HOURS, MAX_KEPT, readCookie, sessionCookie } from './auth.js';

const HOUR = 60 * 60 * 1000;

/** An auth on a clock the test moves. */
function clocked(options: { sessionIdleMs?: number; sessionMaxMs?: number } = {}) {
  let t = 1_000_000;
  const auth = createAuth({ ...options, now: () => t });
  return { auth, at: (ms: number) => (t = 1_000_000 + ms), advance: (ms: number) => (t += ms) };
}

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

  describe('expiry', () => {
    it.each([
      // [what, idle, max, uses at (ms after sign-in), the last one accepted?]
      ['used within the idle time, again and again, until the end of its life', 2 * HOUR, 10 * HOUR, [1.5 * HOUR, 3 * HOUR, 4.5 * HOUR, 6 * HOUR, 7.5 * HOUR, 9 * HOUR], true],
      ['used once more past its whole life, though never idle', 2 * HOUR, 10 * HOUR, [1.5 * HOUR, 3 * HOUR, 4.5 * HOUR, 6 * HOUR, 7.5 * HOUR, 9 * HOUR, 10 * HOUR], false],
      ['left unused for exactly the idle time', 2 * HOUR, 10 * HOUR, [2 * HOUR], false],
      ['left unused a moment less than the idle time', 2 * HOUR, 10 * HOUR, [2 * HOUR - 1], true],
      ['defaults: a night away (20 h)', undefined, undefined, [20 * HOUR], true],
      ['defaults: a weekend away (60 h)', undefined, undefined, [60 * HOUR], false],
    ] as const)('a session %s', (_what, idle, max, uses, accepted) => {
      const { auth, at } = clocked({ ...(idle !== undefined ? { sessionIdleMs: idle } : {}), ...(max !== undefined ? { sessionMaxMs: max } : {}) });
      const session = auth.redeem(auth.issueToken())!;
      at(0);
      const answers = uses.map((ms) => {
        at(ms);
        return auth.isSession(session);
      });
      expect(answers).toEqual([...Array<boolean>(uses.length - 1).fill(true), accepted]);
      // An ended session stays ended.
      if (!accepted) {
        at(0);
        expect(auth.isSession(session)).toBe(false);
      }
    });

    it('a page left open (its stream asks at each heartbeat) keeps its session for the whole lifetime, no longer', () => {
      const { auth, advance } = clocked();
      const session = auth.redeem(auth.issueToken())!;
      let hours = 0;
      while (auth.isSession(session)) {
        advance(HOUR);
        hours++;
      }
      // A week, as the README documents it.
      expect(hours).toBe(168);
    });

    it.each([
      ['opened an hour after the start', 1 * HOUR, true],
      ['opened a day and a half after the start (past the idle time: the link is the only way in)', 36 * HOUR, true],
      ['opened just before the end of a session lifetime', DEFAULT_SESSION_MAX_HOURS * HOUR - 1, true],
      ['opened a session lifetime after the start', DEFAULT_SESSION_MAX_HOURS * HOUR, false],
    ])('the start link %s works: %s', (_what, after, works) => {
      const { auth, advance } = clocked();
      const token = auth.issueToken();
      advance(after);
      const session = auth.redeem(token);
      expect(session !== undefined).toBe(works);
      if (session !== undefined) expect(auth.isSession(session)).toBe(true);
      // Spent or expired, it never works again.
      expect(auth.redeem(token)).toBeUndefined();
    });
  });

  it(`keeps at most ${MAX_KEPT} tokens and ${MAX_KEPT} sessions, pushing out the oldest`, () => {
    const { auth, advance } = clocked();
    const tokens = Array.from({ length: MAX_KEPT + 4 }, () => {
      advance(1);
      return auth.issueToken();
    });
    // The 4 oldest tokens were pushed out; the rest still work, each giving a session.
    expect(tokens.slice(0, 4).map((t) => auth.redeem(t))).toEqual([undefined, undefined, undefined, undefined]);
    const sessions = tokens.slice(4).map((t) => {
      advance(1);
      return auth.redeem(t)!;
    });
    expect(sessions.every((s) => s !== undefined)).toBe(true);
    const more = Array.from({ length: 3 }, () => {
      advance(1);
      return auth.redeem(auth.issueToken())!;
    });
    // Three new sessions pushed out the three least recently used.
    expect(sessions.map((s) => auth.isSession(s))).toEqual([false, false, false, ...Array<boolean>(MAX_KEPT - 3).fill(true)]);
    expect(more.every((s) => auth.isSession(s))).toBe(true);
  });
});
