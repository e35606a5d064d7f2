import { describe, expect, it } from 'vitest';
import { FALLBACK_MAX_CONNECTIONS, MAX_DEFAULT_CONNECTIONS, defaultMaxConnections } from './connections.js';

const limits = (soft: string, hard = soft) => () =>
  `Limit                     Soft Limit           Hard Limit           Units     \nMax open files            ${soft}                ${hard}                files     \n`;

describe('defaultMaxConnections', () => {
  it.each([
    ['1024', 480],
    ['4096', 2016],
    ['20000', 9968],
    ['100', 18],
    ['64', 1],
    ['1048576', MAX_DEFAULT_CONNECTIONS],
    ['unlimited', MAX_DEFAULT_CONNECTIONS],
  ])('a soft limit of %s open files gives %i connections', (soft, expected) => {
    expect(defaultMaxConnections(limits(soft, '1048576'))).toBe(expected);
  });

  it('falls back to a fixed number where the limit cannot be read', () => {
    expect(
      defaultMaxConnections(() => {
        throw new Error('ENOENT');
      }),
    ).toBe(FALLBACK_MAX_CONNECTIONS);
    expect(defaultMaxConnections(() => 'Max cpu time unlimited unlimited seconds\n')).toBe(FALLBACK_MAX_CONNECTIONS);
    expect(defaultMaxConnections(() => 'Max open files            lots      lots     files\n')).toBe(FALLBACK_MAX_CONNECTIONS);
  });

  it('reads this process\'s limit on Linux', () => {
    const n = defaultMaxConnections();
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThanOrEqual(MAX_DEFAULT_CONNECTIONS);
  });
});
