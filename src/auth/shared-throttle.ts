/**
 * The wrong-key throttle's failures counted in Redis, for gateways sharing one (`state.redis`): one
 * script per failure, sent without waiting, counts it under the address for a minute from the first
 * and answers the count and what is left of the minute, which the throttle adopts (throttle.ts). Only
 * failures reach Redis; while it is down each gateway counts alone, as it does without Redis.
 */
import type { RedisConnection } from '../state/redis-connection.js';
import { adoptFailures, type ShareFailure, WINDOW_MS } from './throttle.js';

const NOTE = {
  name: 'modelGatewayAuthFailure',
  lua: `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return { n, redis.call('PTTL', KEYS[1]) }
`,
};

export function shareAuthFailures(connection: Pick<RedisConnection, 'client' | 'up' | 'failed'>, keyPrefix: string): ShareFailure {
  const client = connection.client;
  client.defineCommand(NOTE.name, { numberOfKeys: 1, lua: NOTE.lua });
  const scripted = client as unknown as Record<string, (key: string, windowMs: number) => Promise<unknown>>;
  return (throttle, address, now) => {
    if (!connection.up) return;
    scripted[NOTE.name]!(`${keyPrefix}auth-failures:{${address}}`, WINDOW_MS).then((reply) => {
      const [count, left] = Array.isArray(reply) ? (reply as unknown[]) : [];
      if (typeof count === 'number' && typeof left === 'number') adoptFailures(throttle, address, count, left, now);
    }, connection.failed);
  };
}
