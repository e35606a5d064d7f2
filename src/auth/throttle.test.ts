import { describe, expect, it } from 'vitest';
import { adoptFailures, clientBlock, newAuthThrottle, noteFailure, refuseRepeatedKeys, waitMs, WINDOW_MS } from './throttle.js';

describe('the auth-failure throttle', () => {
  it('throttles an address once it reaches the limit, until its minute is over', () => {
    const t = newAuthThrottle();
    const start = 1_000_000;
    for (let i = 0; i < 3; i++) {
      expect(waitMs(t, '10.0.0.1', 3, start + i)).toBe(0);
      noteFailure(t, '10.0.0.1', start + i);
    }
    expect(waitMs(t, '10.0.0.1', 3, start + 10)).toBe(WINDOW_MS - 10);
    expect(waitMs(t, '10.0.0.2', 3, start + 10)).toBe(0);
    expect(waitMs(t, '10.0.0.1', 3, start + WINDOW_MS)).toBe(0);
    // A new window starts from scratch.
    noteFailure(t, '10.0.0.1', start + WINDOW_MS + 1);
    expect(waitMs(t, '10.0.0.1', 3, start + WINDOW_MS + 2)).toBe(0);
  });

  // What the gateways sharing a Redis counted for an address, adopted when it is more than this one counted.
  it.each([
    { case: 'more than here, at the limit: throttled for what is left of the shared minute', local: 1, shared: 3, left: 40_000, wait: 40_000 },
    { case: 'more than here, under the limit: counted, not throttled', local: 0, shared: 2, left: 40_000, wait: 0 },
    { case: 'fewer than here: this gateway keeps its own count', local: 3, shared: 2, left: 5_000, wait: WINDOW_MS },
    { case: 'a window left longer than a minute (no such answer): ignored', local: 0, shared: 9, left: WINDOW_MS + 1, wait: 0 },
    { case: 'a window already over: ignored', local: 0, shared: 9, left: 0, wait: 0 },
  ])('adopts what all gateways counted: $case', ({ local, shared, left, wait }) => {
    const t = newAuthThrottle();
    const now = 5_000_000;
    for (let i = 0; i < local; i++) noteFailure(t, '10.0.0.1', now);
    adoptFailures(t, '10.0.0.1', shared, left, now);
    expect(waitMs(t, '10.0.0.1', 3, now)).toBe(wait);
  });

  it('keeps at most `capacity` addresses, forgetting the window opened longest ago', () => {
    const t = newAuthThrottle(3);
    for (let i = 0; i < 10; i++) noteFailure(t, `10.0.0.${i}`, 1000 + i);
    expect(t.windows.size).toBe(3);
    expect([...t.windows.keys()]).toEqual(['10.0.0.7', '10.0.0.8', '10.0.0.9']);
  });

  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff::9', '2001:db8:1:2::/64'],
    ['2001:DB8:0001:0002::', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1:2', 'fe80:0:0:0::/64'],
    [undefined, '?'],
  ])('counts %s under %s', (address, block) => {
    expect(clientBlock(address)).toBe(block);
  });

  it.each([
    [['authorization', 'Bearer a', 'Authorization', 'Bearer a'], /Authorization/],
    [['x-api-key', 'a', 'X-API-KEY', 'b'], /x-api-key/],
    [['host', 'x', 'authorization', 'Bearer a', 'x-api-key', 'a'], undefined],
    [['authorizations', 'a', 'authorization', 'Bearer a'], undefined],
    [['x-goog-api-key', 'a', 'X-Goog-Api-Key', 'a'], /x-goog-api-key/],
    [['x-goog-api-key', 'a', 'x-api-key', 'a', 'authorization', 'Bearer a'], undefined],
  ])('refuses a repeated key header: %j', (raw, refused) => {
    if (refused) expect(() => refuseRepeatedKeys(raw, '/v1/messages')).toThrow(refused);
    else expect(() => refuseRepeatedKeys(raw, '/v1/messages')).not.toThrow();
  });

  it.each([
    ['/v1beta/models?key=a&key=a', true],
    ['/v1beta/models?key=a&alt=sse&key=b', true],
    ['/v1beta/models?key=a&alt=sse', false],
    ['/v1beta/models?keys=a&key=b', false],
    [undefined, false],
  ])('refuses a repeated key query parameter: %s', (url, refused) => {
    if (refused) expect(() => refuseRepeatedKeys([], url)).toThrow(/`key` query parameter/);
    else expect(() => refuseRepeatedKeys([], url)).not.toThrow();
  });
});
