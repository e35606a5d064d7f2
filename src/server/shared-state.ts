/**
 * What a gateway keeps where other gateways see it: with `state.redis`, one connection to Redis
 * shared by the key-group limits, the budgets' spend and reservations, the wrong-key throttle's
 * failures and the credentials' cool-downs (these also listen on a second one); without it, this
 * process's memory alone (nothing here runs on the request path then). Closed after the last request.
 */
import { shareAuthFailures } from '../auth/shared-throttle.js';
import { type AuthThrottle, MAX_TRACKED_ADDRESSES, newAuthThrottle } from '../auth/throttle.js';
import type { BudgetStore } from '../budgets/budget-store.js';
import { createMemoryBudgetStore } from '../budgets/memory-store.js';
import { sharedBudgetStore } from '../budgets/shared-store.js';
import type { Config } from '../config/types.js';
import type { LimitStore } from '../limits/limit-store.js';
import { createMemoryLimitStore } from '../limits/memory-store.js';
import { sharedLimitStore } from '../limits/shared-store.js';
import type { Logger } from '../log/logger.js';
import { type MetricsHooks, noMetrics } from '../metrics/hooks.js';
import type { CooldownPeers } from '../providers/credentials/rotation.js';
import { shareCooldowns } from '../state/cooldowns.js';
import { type JointStore, jointStore } from '../state/admission.js';
import { whileRedisDown } from '../state/on-redis-down.js';
import { connectRedis } from '../state/redis-connection.js';

export interface SharedState {
  readonly limits: LimitStore;
  readonly budgets: BudgetStore;
  readonly authFailures: AuthThrottle;
  readonly cooldowns?: CooldownPeers;
  /** Both stores in Redis (none given): a request with limits and budgets is admitted and reserves in one round trip. */
  readonly joint?: JointStore;
  close(): Promise<void>;
}

/** Stores the caller keeps (and closes) itself, used instead of the config's. */
export interface GivenStores {
  readonly limits?: LimitStore | undefined;
  readonly budgets?: BudgetStore | undefined;
}

export function sharedState(config: Config, logger: Logger, given: GivenStores = {}, metrics: MetricsHooks = noMetrics): SharedState {
  const state = config.state;
  if (!state) {
    return { limits: given.limits ?? createMemoryLimitStore(), budgets: given.budgets ?? createMemoryBudgetStore(), authFailures: newAuthThrottle(), close: async () => {} };
  }
  const redis = connectRedis({ state, logger, whileDown: whileRedisDown(state), health: (up) => metrics.storeHealth('redis', up ? 1 : 0) });
  const limits = given.limits ? undefined : sharedLimitStore(redis, state);
  const budgets = given.budgets ? undefined : sharedBudgetStore(redis, state);
  const cooldowns = shareCooldowns(redis, state.keyPrefix);
  const joint = limits && budgets ? jointStore(redis, { limits: limits.redis, budgets: budgets.redis }, { limits, budgets }) : undefined;
  return {
    limits: given.limits ?? limits!,
    budgets: given.budgets ?? budgets!,
    authFailures: newAuthThrottle(MAX_TRACKED_ADDRESSES, shareAuthFailures(redis, state.keyPrefix)),
    cooldowns,
    ...(joint ? { joint } : {}),
    async close() {
      limits?.close();
      budgets?.close();
      cooldowns.close();
      await redis.close();
    },
  };
}
