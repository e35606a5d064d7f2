/**
 * The limit store a gateway runs with: this process's memory, or, with `state.redis`, Redis
 * behind the `state.onRedisDown.limits` policy. While Redis is down (a command failed or timed
 * out, until it answers again; see state/redis-connection.ts), `open` decides in this process's
 * memory and `closed` refuses at once, as a store that cannot decide (503 in the caller's shape);
 * neither waits on Redis. An admission granted by one store is ended on that store.
 */
import type { Config, GroupLimits, OnRedisDown, StateConfig } from '../config/types.js';
import type { Logger } from '../log/logger.js';
import { connectRedis, type RedisConnection } from '../state/redis-connection.js';
import { LimitStoreDown, type Decision, type LimitStore } from './limit-store.js';
import { createMemoryLimitStore } from './memory-store.js';
import { createRedisLimitStore, type RedisLimitStoreOptions } from './redis-store.js';

/** A store with a connection to close when the gateway stops. */
export interface GatewayLimitStore extends LimitStore {
  /** Where limits are kept, for `check` and the banner. */
  readonly where: 'memory' | 'redis';
  close(): Promise<void>;
}

const WHILE_DOWN = {
  open: "limits are counted in this gateway's memory until it answers",
  closed: 'requests of key groups with limits are refused (503) until it answers',
} as const satisfies Record<OnRedisDown, string>;

export function gatewayLimitStore(config: Config, logger: Logger): GatewayLimitStore {
  const state = config.state;
  if (!state) return { ...createMemoryLimitStore(), where: 'memory', close: async () => {} };
  const connection = connectRedis({ state, logger, whileDown: WHILE_DOWN[state.onRedisDown.limits] });
  return sharedLimitStore(connection, state);
}

/** Redis behind the policy; `slotTtlMs` and `clock` for tests (see redis-store.ts). */
export function sharedLimitStore(
  connection: RedisConnection,
  state: Pick<StateConfig, 'keyPrefix' | 'onRedisDown'>,
  testing: Pick<RedisLimitStoreOptions, 'slotTtlMs' | 'clock'> = {},
): GatewayLimitStore {
  const redis = createRedisLimitStore({ connection, keyPrefix: state.keyPrefix, ...testing });
  const local = createMemoryLimitStore(testing.clock);
  const open = state.onRedisDown.limits === 'open';
  const down = (group: string, limits: GroupLimits, now: number): Decision => {
    if (open) return local.admit(group, limits, now);
    throw new LimitStoreDown();
  };
  return {
    where: 'redis',
    admit(group, limits, now) {
      if (!connection.up) return down(group, limits, now);
      return redis.admit(group, limits, now).catch((err: unknown) => {
        connection.failed(err);
        return down(group, limits, now);
      });
    },
    async close() {
      redis.close();
      await connection.close();
    },
  };
}
