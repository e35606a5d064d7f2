/**
 * The Lua scripts of the Redis limit store. Each runs atomically in Redis, so gateways asking at
 * once cannot both take the last place. Times are Redis's own (`TIME`, in ms) unless the caller
 * passes one (tests, which need a clock they control); every instance thus reads one clock.
 *
 * Keys of a group (`<prefix>limits:{<group>}:…`; the braces keep them in one Redis Cluster slot):
 * - `rpm`: a hash, the requests-per-minute bucket: `u`, what is left in units of 1/60000 of a
 *   request (so a bucket of `rpm` refills `rpm` units per ms, in whole numbers), and `at`, when
 *   it was last taken from. It expires when it would be full again, and a missing bucket is full.
 * - `slots`: a sorted set of the requests in progress, each scored by when it expires: the
 *   instance that admitted it pushes that back while it lives, so a crashed instance's slots
 *   expire on their own.
 * - `tpm`: a hash of tokens reported per second (field: the second), over the last minute.
 */
/** A script as the client defines it as a command of its own (`defineCommand`). */
export interface Script {
  readonly name: string;
  /** How many of a call's arguments are keys; -1: a number given first in each call says. */
  readonly keys: number;
  readonly lua: string;
}

/**
 * Lua defining `now_ms(given)`: `given` when it is a number, else Redis's clock in ms. Redis before 5 must be
 * told to replicate a script's effects when it reads TIME before writing; later ones always do.
 */
export const NOW = `
if redis.replicate_commands then pcall(redis.replicate_commands) end
local function now_ms(given)
  local n = tonumber(given)
  if n then return n end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/**
 * KEYS: rpm, slots, tpm. ARGV: now (or ''), requestsPerMinute, concurrentRequests, tokensPerMinute
 * (0: none), the slot's id, the slot's lifetime in ms.
 * Returns {1} when admitted, else {0, which (1 tokens, 2 concurrent, 3 requests per minute), wait ms}.
 * The limits are checked in the memory store's order, and a refusal takes nothing.
 */
export const ADMIT_LUA = `
local now = now_ms(ARGV[1])
local rpm = tonumber(ARGV[2])
local conc = tonumber(ARGV[3])
local tpm = tonumber(ARGV[4])
local ttl = tonumber(ARGV[6])

if tpm > 0 then
  local second = math.floor(now / 1000)
  local fields = redis.call('HGETALL', KEYS[3])
  local live = {}
  local total = 0
  for i = 1, #fields, 2 do
    local s = tonumber(fields[i])
    if s and s > second - 60 then
      local n = tonumber(fields[i + 1]) or 0
      live[#live + 1] = { s, n }
      total = total + n
    else
      redis.call('HDEL', KEYS[3], fields[i])
    end
  end
  if total >= tpm then
    table.sort(live, function(a, b) return a[1] < b[1] end)
    local wait = 60000
    for _, e in ipairs(live) do
      total = total - e[2]
      -- That second leaves the window when a minute has passed since its end.
      if total < tpm then
        wait = math.max(1, (e[1] + 60) * 1000 - now)
        break
      end
    end
    return { 0, 1, wait }
  end
end

if conc > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  -- No way to know when one ends; a second is the SDKs' usual first pause.
  if redis.call('ZCARD', KEYS[2]) >= conc then return { 0, 2, 1000 } end
end

if rpm > 0 then
  local cap = rpm * 60000
  local b = redis.call('HMGET', KEYS[1], 'u', 'at')
  local units = tonumber(b[1])
  local at = tonumber(b[2])
  if not units or not at then
    units = cap
    at = now
  end
  units = math.min(cap, units + math.max(0, now - at) * rpm)
  if units < 60000 then return { 0, 3, math.ceil((60000 - units) / rpm) } end
  units = units - 60000
  redis.call('HSET', KEYS[1], 'u', string.format('%.0f', units), 'at', string.format('%.0f', now))
  redis.call('PEXPIRE', KEYS[1], math.ceil((cap - units) / rpm) + 1)
end

if conc > 0 then
  redis.call('ZADD', KEYS[2], now + ttl, ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ttl)
end
return { 1 }
`;
export const ADMIT: Script = { name: 'modelGatewayLimitsAdmit', keys: 3, lua: NOW + ADMIT_LUA };

/**
 * KEYS and ARGV as ADMIT_LUA's, run after it admitted: gives back what it took (the request of the
 * minute, the slot), for a script that then refuses the request for another reason (a budget:
 * state/admission-scripts.ts).
 */
export const UNADMIT_LUA = `
if tonumber(ARGV[2]) > 0 then redis.call('HINCRBY', KEYS[1], 'u', 60000) end
if ARGV[5] ~= '' then redis.call('ZREM', KEYS[2], ARGV[5]) end
return 1
`;

/** KEYS: slots, tpm. ARGV: now (or ''), the slot's id (or ''), tokens to report (0: none). */
export const END_LUA = `
if ARGV[2] ~= '' then redis.call('ZREM', KEYS[1], ARGV[2]) end
local tokens = tonumber(ARGV[3])
if tokens and tokens > 0 then
  local second = math.floor(now_ms(ARGV[1]) / 1000)
  redis.call('HINCRBY', KEYS[2], string.format('%.0f', second), tokens)
  redis.call('PEXPIRE', KEYS[2], 61000)
end
return 1
`;
export const END: Script = { name: 'modelGatewayLimitsEnd', keys: 2, lua: NOW + END_LUA };

/** KEYS: slots. ARGV: now (or ''), the slots' lifetime in ms, then the ids of the slots still held. Only slots still there are pushed back. */
export const REFRESH: Script = { name: 'modelGatewayLimitsRefresh', keys: 1, lua: `${NOW}
local until_ms = now_ms(ARGV[1]) + tonumber(ARGV[2])
for i = 3, #ARGV do redis.call('ZADD', KEYS[1], 'XX', until_ms, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
` };
