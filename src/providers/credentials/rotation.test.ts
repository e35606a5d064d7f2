import { describe, expect, it } from 'vitest';
import type { CredentialConfig } from '../../config/types.js';
import { GatewayError } from '../../errors.js';
import { createRotation, DEFAULT_COOL_DOWN_MS } from './rotation.js';

const credential = (name: string, extra: Partial<CredentialConfig> = {}): CredentialConfig => ({
  name,
  apiKey: `key-${name}`,
  own: {},
  weight: 1,
  priority: 0,
  limits: {},
  ...extra,
});

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** The names of `n` picks with no conversation, each settled at once. */
function picks(rotation: ReturnType<typeof createRotation>, n: number): string[] {
  return Array.from({ length: n }, () => {
    const p = rotation.pick(undefined);
    p.settle(0);
    return p.name;
  });
}

describe('credential rotation', () => {
  it.each([
    ['equal weights take turns', [credential('a'), credential('b')], 'abab'],
    ['weights 2:1 hold over every three calls', [credential('a', { weight: 2 }), credential('b')], 'abaaba'],
    ['a worse priority is not used while a better one can take calls', [credential('a', { priority: 1 }), credential('b')], 'bbbb'],
  ])('%s', (_name, credentials, expected) => {
    expect(picks(createRotation('p', credentials), expected.length).join('')).toBe(expected);
  });

  it("rests a credential answered 429 until its retry-after, keeping the later deadline, then brings it back", () => {
    const t = clock();
    const r = createRotation('p', [credential('a'), credential('b')], t.now);
    r.observe('a', 429, 10_000);
    r.observe('a', 429, 2_000); // An earlier deadline does not shorten the rest.
    expect(picks(r, 3)).toEqual(['b', 'b', 'b']);
    t.advance(9_999);
    expect(picks(r, 2)).toEqual(['b', 'b']);
    t.advance(1);
    expect(picks(r, 2).sort()).toEqual(['a', 'b']);
  });

  it('rests a credential answered 529 without retry-after for the default time', () => {
    const t = clock();
    const r = createRotation('p', [credential('a'), credential('b')], t.now);
    r.observe('b', 529, undefined);
    t.advance(DEFAULT_COOL_DOWN_MS - 1);
    expect(picks(r, 2)).toEqual(['a', 'a']);
    t.advance(1);
    expect(picks(r, 2).sort()).toEqual(['a', 'b']);
  });

  it('takes a refused credential (401/403) out for good; other answers change nothing', () => {
    const t = clock();
    const r = createRotation('p', [credential('a'), credential('b'), credential('c')], t.now);
    r.observe('a', 401, undefined);
    r.observe('b', 403, undefined);
    r.observe('c', 500, undefined);
    r.observe('c', 400, undefined);
    t.advance(24 * 3_600_000);
    expect(picks(r, 3)).toEqual(['c', 'c', 'c']);
  });

  it('keeps a conversation on its credential while that one can take calls, then moves it', () => {
    const t = clock();
    const r = createRotation('p', [credential('a'), credential('b')], t.now);
    const first = r.pick('session-1').name;
    const other = first === 'a' ? 'b' : 'a';
    // Other calls in between do not move the conversation.
    picks(r, 5);
    expect(r.pick('session-1').name).toBe(first);
    expect(r.pick('session-1').name).toBe(first);
    r.observe(first, 429, 5_000);
    expect(r.pick('session-1').name).toBe(other);
    t.advance(5_000);
    // It stays where it moved while that one is healthy.
    expect(r.pick('session-1').name).toBe(other);
  });

  it("respects each credential's requests per minute, going to the next one at its limit", () => {
    const t = clock();
    const r = createRotation('p', [credential('a', { limits: { requestsPerMinute: 2 } }), credential('b', { priority: 1 })], t.now);
    expect(picks(r, 4)).toEqual(['a', 'a', 'b', 'b']);
    t.advance(30_000); // the bucket refills one request in 30 s
    expect(picks(r, 1)).toEqual(['a']);
  });

  it("counts each credential's tokens per minute from what its calls settle", () => {
    const t = clock();
    const r = createRotation('p', [credential('a', { limits: { tokensPerMinute: 1_000 } }), credential('b', { priority: 1 })], t.now);
    r.pick(undefined).settle(1_500);
    expect(picks(r, 1)).toEqual(['b']);
    t.advance(61_000);
    expect(picks(r, 1)).toEqual(['a']);
  });

  it('answers 429 with the soonest retry-after when every credential is resting or at its limit', () => {
    const t = clock();
    const r = createRotation('p', [credential('a'), credential('b', { limits: { requestsPerMinute: 1 } })], t.now);
    r.observe('a', 429, 20_000);
    r.pick(undefined); // b's one request
    const err = (() => {
      try {
        r.pick(undefined);
      } catch (e) {
        return e;
      }
      return undefined;
    })() as GatewayError;
    expect(err).toBeInstanceOf(GatewayError);
    expect(err.status).toBe(429);
    expect(err.message).toBe("None of provider 'p''s 2 credentials can take a request now; retry in 20s.");
    expect(err.headers?.['retry-after']).toBe('20');
  });

  it('answers 502 naming the config when every credential was refused', () => {
    const r = createRotation('p', [credential('a'), credential('b')]);
    r.observe('a', 401, undefined);
    r.observe('b', 403, undefined);
    expect(() => r.pick(undefined)).toThrow(expect.objectContaining({ status: 502, message: expect.stringContaining('providers.p.credentials') }));
  });

  it('counts a pick settled twice once', () => {
    const r = createRotation('p', [credential('a', { limits: { tokensPerMinute: 100 } })]);
    const p = r.pick('x');
    p.settle(60);
    p.settle(60);
    expect(r.pick('x').name).toBe('a');
  });
});
