import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Config, GatewayKey } from '../config/types.js';
import { GatewayError } from '../errors.js';
import { authenticate, digestKey, extractKey, sameText } from './authenticate.js';

const digest = (k: string) => createHash('sha256').update(k).digest('hex');
const alice: GatewayKey = { digest: digest('mg-alice'), id: digest('mg-alice').slice(0, 8), name: 'alice', group: 'dev' };
const config = { keys: new Map([[alice.digest, alice]]) } as unknown as Config;

const kind = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err instanceof GatewayError ? err.kind : 'other';
  }
  return 'none';
};

describe('authenticate', () => {
  it('digests keys as sha256 hex, as the config stores them', () => {
    expect(digestKey('mg-alice')).toBe(alice.digest);
  });

  it('finds a key by either header, again and again', () => {
    for (let i = 0; i < 3; i++) {
      expect(authenticate(config, { headers: { authorization: 'Bearer mg-alice' } }, 'bearer')).toBe(alice);
      expect(authenticate(config, { headers: { 'x-api-key': 'mg-alice' } }, 'anthropic')).toBe(alice);
    }
  });

  it('refuses a missing, unknown or near-miss key with 401', () => {
    expect(kind(() => authenticate(config, { headers: {} }, 'bearer'))).toBe('authentication');
    expect(kind(() => authenticate(config, { headers: { authorization: 'Bearer mg-bob' } }, 'bearer'))).toBe('authentication');
    expect(kind(() => authenticate(config, { headers: { authorization: 'Bearer mg-alicf' } }, 'bearer'))).toBe('authentication');
    expect(kind(() => authenticate(config, { headers: { 'x-api-key': 'mg-alice' } }, 'bearer'))).toBe('authentication');
  });

  it('remembers the key a connection authenticated with, for that config only', () => {
    const connection = {};
    const other = {};
    expect(authenticate(config, { headers: { authorization: 'Bearer mg-alice' } }, 'bearer', connection)).toBe(alice);
    // A wrong key on the same connection is checked, not taken from memory; the remembered one still works after it.
    expect(kind(() => authenticate(config, { headers: { authorization: 'Bearer mg-alicf' } }, 'bearer', connection))).toBe('authentication');
    expect(kind(() => authenticate(config, { headers: { authorization: 'Bearer mg-alice2' } }, 'bearer', connection))).toBe('authentication');
    expect(authenticate(config, { headers: { 'x-api-key': 'mg-alice' } }, 'anthropic', connection)).toBe(alice);
    // Another connection proves its own key.
    expect(kind(() => authenticate(config, { headers: { authorization: 'Bearer mg-bob' } }, 'bearer', other))).toBe('authentication');
    // A reload that drops the key: the new config refuses it on the connection that had it.
    const reloaded = { keys: new Map() } as unknown as Config;
    expect(kind(() => authenticate(reloaded, { headers: { authorization: 'Bearer mg-alice' } }, 'bearer', connection))).toBe('authentication');
  });

  it.each([
    ['mg-alice', 'mg-alice', true],
    ['mg-alice', 'mg-alicf', false],
    ['mg-alice', 'ng-alice', false],
    ['mg-alice', 'mg-alic', false],
    ['', '', true],
    ['é', 'e', false],
  ])('sameText(%j, %j) is %s', (a, b, equal) => {
    expect(sameText(a, b)).toBe(equal);
  });

  // The common `Bearer <key>` is read without the regular expression; every other spelling falls through to it.
  it.each([
    ['Bearer mg-alice', 'mg-alice'],
    ['Bearer mg-alice  ', 'mg-alice'],
    ['Bearer   mg-alice', 'mg-alice'],
    ['bearer mg-alice', 'mg-alice'],
    ['BEARER mg-alice', 'mg-alice'],
    ['Bearer\tmg-alice', 'mg-alice'],
    ['Bearer mg alice', 'mg alice'],
    ['Bearer ', undefined],
    ['Bearer', undefined],
    ['Bearermg-alice', undefined],
    ['Basic mg-alice', undefined],
  ])('reads the key from Authorization %j', (header, key) => {
    expect(extractKey({ headers: { authorization: header } }, 'bearer')).toBe(key);
  });

  // Only the space and tab HTTP allows around a value are trimmed: other Unicode spaces are part of the key.
  it.each(['\u00a0', '\u2028', '\u2029', '\ufeff', '\u3000', '\u2003', '\u1680', '\u0085', '\v', '\f'])(
    'keeps %j around a key: another key, refused',
    (space) => {
      for (const [headers, style] of [
        [{ authorization: `Bearer mg-alice${space}` }, 'bearer'],
        [{ authorization: `Bearer ${space}mg-alice` }, 'bearer'],
        [{ authorization: `Bearer${space}mg-alice` }, 'bearer'],
        [{ 'x-api-key': `mg-alice${space}` }, 'anthropic'],
        [{ 'x-api-key': `${space}mg-alice` }, 'anthropic'],
      ] as const) {
        expect(extractKey({ headers }, style)).not.toBe('mg-alice');
        expect(kind(() => authenticate(config, { headers }, style))).toBe('authentication');
      }
    },
  );

  it.each([
    ['the x-goog-api-key header', { headers: { 'x-goog-api-key': 'mg-alice' } }],
    ['the key query parameter', { headers: {}, url: '/v1beta/models/m:generateContent?key=mg-alice' }],
    ['the key query parameter among others', { headers: {}, url: '/v1beta/models/m:streamGenerateContent?alt=sse&key=mg-alice' }],
    ['a percent-encoded key parameter', { headers: {}, url: '/v1/models?key=mg%2Dalice' }],
    ['Bearer, as a last resort', { headers: { authorization: 'Bearer mg-alice' } }],
  ])('finds a Google caller key in %s', (_where, req) => {
    expect(authenticate(config, req, 'google')).toBe(alice);
  });

  it('reads the Google header before the query parameter, and neither for the other styles', () => {
    const both = { headers: { 'x-goog-api-key': 'mg-alice' }, url: '/v1beta/models?key=mg-bob' };
    expect(extractKey(both, 'google')).toBe('mg-alice');
    expect(extractKey({ headers: {}, url: '/v1/chat/completions?key=mg-alice' }, 'bearer')).toBeUndefined();
    expect(extractKey({ headers: { 'x-goog-api-key': 'mg-alice' } }, 'anthropic')).toBeUndefined();
    expect(extractKey({ headers: {}, url: '/v1beta/models?key=' }, 'google')).toBeUndefined();
    expect(extractKey({ headers: {}, url: '/v1beta/models?keys=mg-alice' }, 'google')).toBeUndefined();
  });

  it('refuses a missing or wrong Google key with 401, naming where the key goes', () => {
    expect(() => authenticate(config, { headers: {}, url: '/v1beta/models' }, 'google')).toThrow(/x-goog-api-key.*`key` query parameter/);
    expect(kind(() => authenticate(config, { headers: {}, url: '/v1beta/models?key=mg-alicf' }, 'google'))).toBe('authentication');
    expect(kind(() => authenticate(config, { headers: { 'x-goog-api-key': 'mg-bob' } }, 'google'))).toBe('authentication');
  });

  it('trims space and tab around a key', () => {
    expect(extractKey({ headers: { 'x-api-key': ' \tmg-alice\t ' } }, 'anthropic')).toBe('mg-alice');
    expect(extractKey({ headers: { authorization: ' Bearer \t mg-alice \t' } }, 'bearer')).toBe('mg-alice');
  });
});
