/**
 * The Lua scripts that run the limit store's and the budget store's scripts together, for a request
 * whose key group has limits and which answers to budgets: its admission and its reservation in one
 * script, its end and its settling in another, so each is one round trip. Each store's own script
 * runs as a function given its share of the keys and arguments (as the store's script is given them
 * alone), so the two stay the stores' scripts by construction.
 */
import { RESERVE_LUA, SETTLE_LUA } from '../budgets/redis-scripts.js';
import { ADMIT_LUA, END_LUA, NOW, type Script, UNADMIT_LUA } from '../limits/redis-scripts.js';

/** The keys and arguments past the limits' own: a list of each, from `first`. */
const REST = `
local function rest(list, first)
  local out = {}
  for i = first, #list do out[#out + 1] = list[i] end
  return out
end
`;

/**
 * KEYS: the admission's (rpm, slots, tpm), then the reservation's (each counter's hash and held set).
 * ARGV: the admission's six, then the reservation's.
 * Returns {1} when admitted and reserved; the admission's refusal ({0, which, wait}); or the
 * reservation's, as {2, the counter's place, its spend and reservations}. A refusal takes nothing:
 * a reservation refused gives back what the admission took (a request of the minute, the slot).
 */
export const ADMIT_RESERVE: Script = {
  name: 'modelGatewayAdmitReserve',
  keys: -1,
  lua: `${NOW}${REST}
local function admit(KEYS, ARGV)${ADMIT_LUA}end
local function unadmit(KEYS, ARGV)${UNADMIT_LUA}end
local function reserve(KEYS, ARGV)${RESERVE_LUA}end
local admission_keys = { KEYS[1], KEYS[2], KEYS[3] }
local admission_args = { ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6] }
local admitted = admit(admission_keys, admission_args)
if admitted[1] ~= 1 then return admitted end
local reserved = reserve(rest(KEYS, 4), rest(ARGV, 7))
if reserved[1] == 1 then return { 1 } end
unadmit(admission_keys, admission_args)
return { 2, reserved[2], reserved[3] }
`,
};

/**
 * KEYS: the end's (slots, tpm), then the settling's (each counter's hash and held set; none when only
 * the admission ends). ARGV: the end's three ('' and 0 for nothing to end), then the settling's.
 */
export const END_SETTLE: Script = {
  name: 'modelGatewayEndSettle',
  keys: -1,
  lua: `${NOW}${REST}
local function ended(KEYS, ARGV)${END_LUA}end
local function settle(KEYS, ARGV)${SETTLE_LUA}end
ended({ KEYS[1], KEYS[2] }, { ARGV[1], ARGV[2], ARGV[3] })
if #KEYS > 2 then settle(rest(KEYS, 3), rest(ARGV, 4)) end
return 1
`,
};
