/** Cool-down messages arrive from whoever can publish on the shared Redis: anything but the gateway's own shape is dropped. */
import { describe, expect, it } from 'vitest';
import { readCooldown } from './cooldowns.js';

describe('reading a cool-down message', () => {
  const ok = { from: 'a1', provider: 'claude', credential: 'team-a', ms: 30_000 };
  it.each([
    ['not JSON', '{"from":'],
    ['JSON, not an object', '42'],
    ['null', 'null'],
    ['a field missing', JSON.stringify({ ...ok, credential: undefined })],
    ['a provider that is no string', JSON.stringify({ ...ok, provider: ['claude'] })],
    ['a wait that is no number', JSON.stringify({ ...ok, ms: '30000' })],
    ['a wait of zero', JSON.stringify({ ...ok, ms: 0 })],
    ['a negative wait', JSON.stringify({ ...ok, ms: -1 })],
    ['too long to be one', JSON.stringify({ ...ok, credential: 'x'.repeat(5000) })],
  ])('drops %s', (_what, text) => {
    expect(readCooldown(text)).toBeUndefined();
  });

  it('reads the gateway’s own shape, a wait of more than a day cut to a day', () => {
    expect(readCooldown(JSON.stringify(ok))).toEqual(ok);
    expect(readCooldown(JSON.stringify({ ...ok, ms: 1e15 }))?.ms).toBe(24 * 60 * 60 * 1000);
  });
});
