/**
 * ioredis, loaded only by a process that uses Redis (`state.redis`): its memory is not paid by a gateway
 * that keeps its state in memory (docs/performance.md, "Memory at start").
 * `loadConfig` loads it when the config asks for Redis, so that `createGateway` finds it without waiting.
 */
import type { Redis } from 'ioredis';

let loaded: typeof Redis | undefined;

export async function loadRedisClient(): Promise<typeof Redis> {
  loaded ??= (await import('ioredis')).Redis;
  return loaded;
}

export function redisClientClass(): typeof Redis {
  if (!loaded) throw new Error('state.redis needs the Redis client loaded first: load the config with loadConfig, or await loadRedisClient() before createGateway.');
  return loaded;
}
