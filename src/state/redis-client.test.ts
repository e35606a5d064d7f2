import { describe, expect, it } from 'vitest';
import { loadRedisClient, redisClientClass } from './redis-client.js';

describe('the Redis client, loaded on demand', () => {
  it('says how to load it when asked for before it is loaded, and gives the class once it is', async () => {
    expect(() => redisClientClass()).toThrow(/loadConfig, or await loadRedisClient\(\)/);
    const loaded = await loadRedisClient();
    expect(redisClientClass()).toBe(loaded);
    expect((await import('ioredis')).Redis).toBe(loaded);
  });
});
