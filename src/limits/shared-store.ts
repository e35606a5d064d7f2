/**
 * Key-group limits in Redis behind the `state.onRedisDown.limits` policy (state/on-redis-down.ts):
 * while Redis is down, `open` decides in this process's memory, `closed` refuses (503).
 */
import type { StateConfig } from '../config/types.js';
import { underPolicy } from '../state/on-redis-down.js';
import type { RedisConnection } from '../state/redis-connection.js';
import { LimitStoreDown, type LimitStore } from './limit-store.js';
import { createMemoryLimitStore } from './memory-store.js';
import { createRedisLimitStore, type RedisLimitStore, type RedisLimitStoreOptions } from './redis-store.js';

/** The Redis store behind its policy; `close` stops it pushing back slots (the connection is its owner's). */
export interface SharedLimitStore extends LimitStore {
  /** The Redis store itself, whose admissions state/admission.ts joins with reservations. */
  readonly redis: RedisLimitStore;
  close(): void;
}

/** Redis behind the policy; `slotTtlMs` and `clock` for tests (see redis-store.ts). */
export function sharedLimitStore(
  connection: RedisConnection,
  state: Pick<StateConfig, 'keyPrefix' | 'onRedisDown'>,
  testing: Pick<RedisLimitStoreOptions, 'slotTtlMs' | 'clock'> = {},
): SharedLimitStore {
  const redis = createRedisLimitStore({ connection, keyPrefix: state.keyPrefix, ...testing });
  const local = createMemoryLimitStore(testing.clock);
  const admit = underPolicy(connection, state.onRedisDown.limits, { shared: redis.admit, local: local.admit, refusal: () => new LimitStoreDown() });
  return { admit, redis, close: redis.close };
}
