/**
 * The `state.onRedisDown` policy, the same for each kind of state kept in Redis (limits, budgets).
 * While Redis is down (a command failed or timed out, until it answers again; see
 * redis-connection.ts), `open` asks this process's own store and `closed` refuses at once, as a
 * store that cannot decide (503 in the caller's shape); neither waits on Redis. What one store
 * granted is given back to that store.
 */
import type { OnRedisDown, StateConfig } from '../config/types.js';
import type { RedisConnection } from './redis-connection.js';

/**
 * A store's call kept in Redis behind the policy: `shared` while Redis is up; else (and when it
 * fails, which marks Redis down unless the failure was that command's alone: redis-connection.ts)
 * `local` when open, or `refusal` thrown when closed.
 */
export function underPolicy<A extends unknown[], R>(
  connection: Pick<RedisConnection, 'up' | 'failed'>,
  policy: OnRedisDown,
  calls: { readonly shared: (...args: A) => Promise<R>; readonly local: (...args: A) => R | Promise<R>; readonly refusal: () => Error },
): (...args: A) => R | Promise<R> {
  const { shared, local, refusal } = calls;
  const down = policy === 'open' ? local : () => {
    throw refusal();
  };
  return (...args) => {
    if (!connection.up) return down(...args);
    return shared(...args).catch((err: unknown) => {
      connection.failed(err);
      return down(...args);
    });
  };
}

const LIMITS = {
  open: "limits are counted in this gateway's memory",
  closed: 'requests of key groups with limits are refused (503)',
} as const satisfies Record<OnRedisDown, string>;
const BUDGETS = {
  open: "budgets are counted in this gateway's memory",
  closed: 'requests with budgets are refused (503)',
} as const satisfies Record<OnRedisDown, string>;

/** What a gateway does while Redis is down, for the outage's log line. */
export const whileRedisDown = (state: Pick<StateConfig, 'onRedisDown'>): string =>
  `${LIMITS[state.onRedisDown.limits]} and ${BUDGETS[state.onRedisDown.budgets]} until it answers`;
