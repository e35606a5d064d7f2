/**
 * What a gateway keeps where other gateways see it: with `state.redis`, one connection to Redis
 * shared by the key-group limits, the wrong-key throttle's failures and the credentials' cool-downs
 * (these also listen on a second one); without it, this process's memory alone (nothing here runs
 * on the request path then). Closed after the last request.
 */
import { shareAuthFailures } from '../auth/shared-throttle.js';
import { type AuthThrottle, MAX_TRACKED_ADDRESSES, newAuthThrottle } from '../auth/throttle.js';
import type { Config } from '../config/types.js';
import type { LimitStore } from '../limits/limit-store.js';
import { createMemoryLimitStore } from '../limits/memory-store.js';
import { sharedLimitStore, whileRedisDown } from '../limits/shared-store.js';
import type { Logger } from '../log/logger.js';
import type { CooldownPeers } from '../providers/credentials/rotation.js';
import { shareCooldowns } from '../state/cooldowns.js';
import { connectRedis } from '../state/redis-connection.js';

export interface SharedState {
  readonly limits: LimitStore;
  readonly authFailures: AuthThrottle;
  readonly cooldowns?: CooldownPeers;
  close(): Promise<void>;
}

/** `given`: a limit store the caller keeps (and closes) itself, used instead of the config's. */
export function sharedState(config: Config, logger: Logger, given?: LimitStore): SharedState {
  const state = config.state;
  if (!state) return { limits: given ?? createMemoryLimitStore(), authFailures: newAuthThrottle(), close: async () => {} };
  const redis = connectRedis({ state, logger, whileDown: whileRedisDown(state) });
  const own = given ? undefined : sharedLimitStore(redis, state);
  const cooldowns = shareCooldowns(redis, state.keyPrefix);
  return {
    limits: given ?? own!,
    authFailures: newAuthThrottle(MAX_TRACKED_ADDRESSES, shareAuthFailures(redis, state.keyPrefix)),
    cooldowns,
    async close() {
      own?.close();
      cooldowns.close();
      await redis.close();
    },
  };
}
