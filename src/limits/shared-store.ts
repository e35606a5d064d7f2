/**
 * Key-group limits in Redis behind the `state.onRedisDown.limits` policy. While Redis is down (a
 * command failed or timed out, until it answers again; see state/redis-connection.ts), `open`
 * decides in this process's memory and `closed` refuses at once, as a store that cannot decide
 * (503 in the caller's shape); neither waits on Redis. An admission granted by one store is ended
 * on that store.
 */
import type { GroupLimits, OnRedisDown, StateConfig } from '../config/types.js';
import type { RedisConnection } from '../state/redis-connection.js';
import { LimitStoreDown, type Decision, type LimitStore } from './limit-store.js';
import { createMemoryLimitStore } from './memory-store.js';
import { createRedisLimitStore, type RedisLimitStoreOptions } from './redis-store.js';

/** The Redis store behind its policy; `close` stops it pushing back slots (the connection is its owner's). */
export interface SharedLimitStore extends LimitStore {
  close(): void;
}

const WHILE_DOWN = {
  open: "limits are counted in this gateway's memory until it answers",
  closed: 'requests of key groups with limits are refused (503) until it answers',
} as const satisfies Record<OnRedisDown, string>;

/** What a gateway does about its limits while Redis is down, for the outage's log line. */
export const whileRedisDown = (state: Pick<StateConfig, 'onRedisDown'>): string => WHILE_DOWN[state.onRedisDown.limits];

/** Redis behind the policy; `slotTtlMs` and `clock` for tests (see redis-store.ts). */
export function sharedLimitStore(
  connection: RedisConnection,
  state: Pick<StateConfig, 'keyPrefix' | 'onRedisDown'>,
  testing: Pick<RedisLimitStoreOptions, 'slotTtlMs' | 'clock'> = {},
): SharedLimitStore {
  const redis = createRedisLimitStore({ connection, keyPrefix: state.keyPrefix, ...testing });
  const local = createMemoryLimitStore(testing.clock);
  const open = state.onRedisDown.limits === 'open';
  const down = (group: string, limits: GroupLimits, now: number): Decision => {
    if (open) return local.admit(group, limits, now);
    throw new LimitStoreDown();
  };
  return {
    admit(group, limits, now) {
      if (!connection.up) return down(group, limits, now);
      return redis.admit(group, limits, now).catch((err: unknown) => {
        connection.failed(err);
        return down(group, limits, now);
      });
    },
    close: redis.close,
  };
}
