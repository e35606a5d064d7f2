/**
 * The Redis store reading what comes back as hostile: a reply that is not the admission script's is a
 * failure (the policy then applies), and a wait is kept within a minute. The contract suite runs the
 * store against a real redis-server (test/contracts/redis-limit-store.test.ts); only a client standing in
 * for one can answer what no Redis running the script would.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createRedisLimitStore } from './redis-store.js';

/** A client whose every defined script answers `reply`. */
function answering(reply: unknown): Redis {
  const client: Record<string, unknown> = {
    defineCommand(name: string) {
      client[name] = () => Promise.resolve(reply);
    },
  };
  return client as unknown as Redis;
}

const store = (reply: unknown) => createRedisLimitStore({ connection: { client: answering(reply), failed: () => {} }, keyPrefix: 'p:' });

describe('the Redis store reading replies', () => {
  const failures: { what: string; reply: unknown }[] = [
    { what: 'a status', reply: 'OK' },
    { what: 'an empty list', reply: [] },
    { what: 'an unknown limit', reply: [0, 9, 1000] },
    { what: 'a wait that is no number', reply: [0, 1, '1000'] },
    { what: 'a refusal without a wait', reply: [0, 2] },
    { what: 'neither admitted nor refused', reply: [2, 1, 1000] },
    { what: 'nothing', reply: null },
  ];
  for (const { what, reply } of failures) {
    it(`${what}: the admission fails rather than admitting or refusing`, async () => {
      await expect(store(reply).admit('g', { requestsPerMinute: 1 }, 0)).rejects.toThrow(/something else than its answer/);
    });
  }

  it('a refusal names its limit and value, its wait a whole number of ms between 1 and a minute', async () => {
    expect(await store([0, 3, 1e12]).admit('g', { requestsPerMinute: 5 }, 0)).toEqual({ ok: false, limit: 'requestsPerMinute', value: 5, retryAfterMs: 60_000 });
    expect(await store([0, 1, -5]).admit('g', { tokensPerMinute: 9 }, 0)).toEqual({ ok: false, limit: 'tokensPerMinute', value: 9, retryAfterMs: 1 });
    expect(await store([0, 2, 999.2]).admit('g', { concurrentRequests: 2 }, 0)).toEqual({ ok: false, limit: 'concurrentRequests', value: 2, retryAfterMs: 1000 });
  });
});
