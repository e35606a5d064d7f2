/**
 * Budgets in Redis behind the `state.onRedisDown.budgets` policy (state/on-redis-down.ts): while
 * Redis is down, `open` reserves in this process's memory, `closed` refuses (503). A reservation
 * is settled on the store that made it.
 *
 * Seeding goes to both: Redis makes a counter from it only when it holds none (redis-store.ts), and
 * the memory store, used only while Redis is down and the policy open, then starts from this
 * gateway's own spend rather than from nothing.
 */
import type { StateConfig } from '../config/types.js';
import { underPolicy } from '../state/on-redis-down.js';
import type { RedisConnection } from '../state/redis-connection.js';
import { BudgetStoreDown, type BudgetStore } from './budget-store.js';
import { createMemoryBudgetStore } from './memory-store.js';
import { createRedisBudgetStore, type RedisBudgetStore, type RedisBudgetStoreOptions } from './redis-store.js';

/** The Redis store behind its policy; `close` stops it pushing back reservations (the connection is its owner's). */
export interface SharedBudgetStore extends BudgetStore {
  /** The Redis store itself, whose reservations state/admission.ts joins with admissions. */
  readonly redis: RedisBudgetStore;
  close(): void;
}

/** Redis behind the policy; `reservationTtlMs` for tests (see redis-store.ts). */
export function sharedBudgetStore(
  connection: RedisConnection,
  state: Pick<StateConfig, 'keyPrefix' | 'onRedisDown'>,
  testing: Pick<RedisBudgetStoreOptions, 'reservationTtlMs'> = {},
): SharedBudgetStore {
  const redis = createRedisBudgetStore({ connection, keyPrefix: state.keyPrefix, ...testing });
  const policy = state.onRedisDown.budgets;
  const local = createMemoryBudgetStore();
  const reserve = underPolicy(connection, policy, { shared: redis.reserve, local: local.reserve, refusal: () => new BudgetStoreDown() });
  return {
    reserve,
    seed(counter, usd) {
      if (policy === 'open') local.seed(counter, usd);
      if (!connection.up) return undefined;
      return redis.seed(counter, usd).catch(connection.failed);
    },
    redis,
    close: redis.close,
  };
}
