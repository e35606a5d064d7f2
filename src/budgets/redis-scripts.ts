/**
 * The Lua scripts of the Redis budget store. Each runs atomically in Redis, so gateways reserving
 * at once cannot both take the last of a budget. Reservations expire on Redis's own clock (`TIME`),
 * which every gateway reads alike.
 *
 * Amounts are whole nano-dollars (USD × 10⁹): integers add and take away exactly, so a counter's
 * reservations come back to nothing once its requests are settled, and Lua's numbers hold them
 * exactly up to millions of dollars.
 *
 * Keys of a counter (`<prefix>budgets:<counter id>`, then `:held`):
 * - the counter: a hash of `spent`, `reserved` (the sum of the live reservations) and one field
 *   `r:<reservation id>` per live reservation, its amount. It expires a while after its period ends.
 * - `held`: a sorted set of the live reservations' ids, each scored by when it expires: the gateway
 *   that made it pushes that back while its request lives, so a crashed gateway's reservations are
 *   taken off the counter (by the next reservation on it) once they expire.
 *
 * The keys of a request's counters are its key group's and its key's; a script names them all, so
 * they are on the one Redis the connection reaches.
 */
import { NOW, type Script } from '../limits/redis-scripts.js';

// Takes a counter's expired reservations off it. KEYS[h]: the counter, KEYS[h + 1]: its held set (KEYS as the script
// that holds it sees them: a script of several stores' parts passes each part its own).
const PURGE = `
local function purge(h, now)
  local gone = redis.call('ZRANGEBYSCORE', KEYS[h + 1], '-inf', now)
  if #gone == 0 then return end
  local freed = 0
  for _, id in ipairs(gone) do
    freed = freed + (tonumber(redis.call('HGET', KEYS[h], 'r:' .. id)) or 0)
    redis.call('HDEL', KEYS[h], 'r:' .. id)
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[h + 1], '-inf', now)
  redis.call('HINCRBY', KEYS[h], 'reserved', string.format('%.0f', -freed))
end
`;

/**
 * KEYS: each counter's hash and held set, in the request's order. ARGV: the reservation's id ('' for
 * an amount of 0: nothing to hold), its amount, its lifetime in ms, then for each counter its
 * budget and how long its keys live (ms).
 * Returns {1} when reserved on every counter, else {0, the counter's 1-based place, its spend and
 * reservations}; a refusal reserves nothing.
 */
export const RESERVE_LUA = `${PURGE}
local now = now_ms('')
local id = ARGV[1]
local amount = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local n = #KEYS / 2
for i = 1, n do
  local h = 2 * i - 1
  purge(h, now)
  local s = redis.call('HMGET', KEYS[h], 'spent', 'reserved')
  local total = (tonumber(s[1]) or 0) + (tonumber(s[2]) or 0)
  if total >= tonumber(ARGV[2 + 2 * i]) then return { 0, i, string.format('%.0f', total) } end
end
for i = 1, n do
  local h = 2 * i - 1
  local life = tonumber(ARGV[3 + 2 * i])
  if id ~= '' then
    redis.call('HINCRBY', KEYS[h], 'reserved', ARGV[2])
    redis.call('HSET', KEYS[h], 'r:' .. id, ARGV[2])
    redis.call('ZADD', KEYS[h + 1], now + ttl, id)
    redis.call('PEXPIRE', KEYS[h + 1], math.max(life, ttl))
  else
    redis.call('HSETNX', KEYS[h], 'spent', 0)
  end
  redis.call('PEXPIRE', KEYS[h], math.max(life, ttl))
end
return { 1 }
`;
export const RESERVE: Script = { name: 'modelGatewayBudgetReserve', keys: -1, lua: NOW + RESERVE_LUA };

/**
 * KEYS: each counter's hash and held set. ARGV: the reservation's id (or ''), the cost, then for each
 * counter how long its keys live (ms). The reservation comes off each counter it is still on (an
 * expired one was taken off already), and the cost is added.
 */
export const SETTLE_LUA = `
local id = ARGV[1]
local cost = tonumber(ARGV[2])
for i = 1, #KEYS / 2 do
  local h = 2 * i - 1
  if id ~= '' and redis.call('ZREM', KEYS[h + 1], id) == 1 then
    local amount = tonumber(redis.call('HGET', KEYS[h], 'r:' .. id)) or 0
    redis.call('HDEL', KEYS[h], 'r:' .. id)
    redis.call('HINCRBY', KEYS[h], 'reserved', string.format('%.0f', -amount))
  end
  if cost > 0 then
    redis.call('HINCRBY', KEYS[h], 'spent', ARGV[2])
    -- A counter that expired meanwhile is made again: it must not live for ever.
    if redis.call('PTTL', KEYS[h]) < 0 then redis.call('PEXPIRE', KEYS[h], tonumber(ARGV[2 + i])) end
  end
end
return 1
`;
export const SETTLE: Script = { name: 'modelGatewayBudgetSettle', keys: -1, lua: SETTLE_LUA };

/** KEYS: a counter's held set. ARGV: the reservations' lifetime in ms, then the ids still held. Only those still there are pushed back. */
export const HOLD: Script = { name: 'modelGatewayBudgetHold', keys: 1, lua: `${NOW}
local until_ms = now_ms('') + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', until_ms, ARGV[i]) end
return 1
` };

/**
 * KEYS: a counter's hash. ARGV: spend, how long the key lives (ms). The spend is written only when
 * Redis holds no such counter: each gateway's ledger has its own requests only, and a counter
 * already there has counted every gateway's since it was made.
 */
export const SEED: Script = { name: 'modelGatewayBudgetSeed', keys: 1, lua: `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'spent', ARGV[1], 'reserved', 0)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
` };
