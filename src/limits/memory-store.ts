/**
 * Limits kept in this process's memory: a token bucket for requests per minute
 * (bursts up to the limit, refilled evenly), a counter for concurrent requests,
 * and a rolling minute of reported tokens in one-second buckets. A group's state
 * is created on its first request and survives config reloads (limits are read
 * from the config on each request, so a changed limit applies at once).
 */
import type { GroupLimits } from '../config/types.js';
import type { Admission, Decision, LimitStore } from './limit-store.js';

const MINUTE_MS = 60_000;
const SECONDS = 60;

interface GroupState {
  /** Requests-per-minute bucket: tokens left and when it was last refilled. */
  tokens: number;
  refilledAt: number;
  active: number;
  /** Tokens used per second of the last minute: ring indexed by second, with the second each slot holds. */
  readonly used: number[];
  readonly usedAt: number[];
}

/** The memory store answers at once. */
export interface MemoryLimitStore extends LimitStore {
  admit(group: string, limits: GroupLimits, now: number): Decision;
}

export function createMemoryLimitStore(clock: () => number = Date.now): MemoryLimitStore {
  const groups = new Map<string, GroupState>();
  const stateOf = (group: string, limits: GroupLimits, now: number): GroupState => {
    let state = groups.get(group);
    if (!state) {
      state = {
        tokens: limits.requestsPerMinute ?? 0,
        refilledAt: now,
        active: 0,
        used: new Array<number>(SECONDS).fill(0),
        usedAt: new Array<number>(SECONDS).fill(-1),
      };
      groups.set(group, state);
    }
    return state;
  };

  return {
    admit(group, limits, now): Decision {
      const state = stateOf(group, limits, now);
      const tpm = limits.tokensPerMinute;
      if (tpm !== undefined) {
        const wait = tokenWait(state, tpm, now);
        if (wait > 0) return { ok: false, limit: 'tokensPerMinute', value: tpm, retryAfterMs: wait };
      }
      if (limits.concurrentRequests !== undefined && state.active >= limits.concurrentRequests) {
        // No way to know when one ends; a second is the SDKs' usual first pause.
        return { ok: false, limit: 'concurrentRequests', value: limits.concurrentRequests, retryAfterMs: 1000 };
      }
      const rpm = limits.requestsPerMinute;
      if (rpm !== undefined) {
        const rate = rpm / MINUTE_MS;
        state.tokens = Math.min(rpm, state.tokens + (now - state.refilledAt) * rate);
        state.refilledAt = now;
        if (state.tokens < 1) return { ok: false, limit: 'requestsPerMinute', value: rpm, retryAfterMs: Math.ceil((1 - state.tokens) / rate) };
        state.tokens -= 1;
      }
      state.active++;
      let ended = false;
      const admission: Admission = {
        end(tokens) {
          if (ended) return;
          ended = true;
          state.active--;
          if (tokens > 0) addTokens(state, tokens, clock());
        },
      };
      return { ok: true, admission };
    },
  };
}

function addTokens(state: GroupState, tokens: number, now: number): void {
  const second = Math.floor(now / 1000);
  const slot = second % SECONDS;
  if (state.usedAt[slot] !== second) {
    state.usedAt[slot] = second;
    state.used[slot] = 0;
  }
  state.used[slot]! += tokens;
}

/** ms until the tokens reported in the last minute fall below `limit`; 0 when they already are. */
function tokenWait(state: GroupState, limit: number, now: number): number {
  const second = Math.floor(now / 1000);
  // The slots still inside the window, oldest first.
  const live: { second: number; tokens: number }[] = [];
  let total = 0;
  for (let s = second - SECONDS + 1; s <= second; s++) {
    const slot = ((s % SECONDS) + SECONDS) % SECONDS;
    if (state.usedAt[slot] === s && state.used[slot]! > 0) {
      live.push({ second: s, tokens: state.used[slot]! });
      total += state.used[slot]!;
    }
  }
  if (total < limit) return 0;
  for (const { second: s, tokens } of live) {
    total -= tokens;
    // That second leaves the window when a minute has passed since its end.
    if (total < limit) return Math.max(1, (s + SECONDS) * 1000 - now);
  }
  return MINUTE_MS;
}
