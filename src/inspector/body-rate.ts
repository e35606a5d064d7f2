/**
 * How many requests a second history keeps whole while no page is open: the others keep their row
 * (the facts) and not their bodies. A developer's pace, a few requests a second with bursts of a
 * dozen (an agent's subagents starting together), is kept whole; a gateway under load does not copy
 * the bodies of thousands of requests a second that the ring would write over within seconds and
 * nobody could read at that pace (docs/performance.md, "The inspector").
 *
 * A token bucket: `burst` whole requests at once, refilled at `perSecond` a second. `open` asks
 * whether a request starting now would be kept whole (capture it?), `take` keeps it so.
 */
export interface BodyRate {
  /** Whether a request starting now may be kept whole (nothing is taken). */
  open(): boolean;
  /** Takes one request's worth: whether this request's bodies are kept. */
  take(): boolean;
}

/** Requests kept whole at once unless told otherwise: a developer's subagents start a dozen together. */
export const DEFAULT_BURST = 20;
/** A rate's burst unless told otherwise: `DEFAULT_BURST`, or a second's worth when that is more; none at a rate of 0. */
export const burstFor = (perSecond: number) => (perSecond > 0 ? Math.max(DEFAULT_BURST, Math.floor(perSecond)) : 0);

export function bodyRate(perSecond: number, burst = burstFor(perSecond), now: () => number = () => performance.now()): BodyRate {
  const rate = Math.max(0, perSecond);
  const capacity = rate > 0 ? Math.max(1, Math.floor(burst)) : 0;
  let tokens = capacity;
  let at = now();
  const refill = () => {
    const t = now();
    // A clock that went back (a test's, say) adds nothing rather than taking tokens away.
    if (t > at) tokens = Math.min(capacity, tokens + ((t - at) * rate) / 1000);
    at = t;
  };
  return {
    open() {
      if (tokens >= 1) return true;
      refill();
      return tokens >= 1;
    },
    take() {
      refill();
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
