/**
 * Which of a provider's credentials the next call uses. Credentials of the best (lowest)
 * `priority` that can take a call share the calls by `weight` (smooth weighted round robin, so
 * the shares hold over any stretch of calls, without randomness); the next priority is used only
 * when none of the better ones can. A credential cannot take a call while it cools down after
 * a 429/529 (until the answer's `retry-after`, the later deadline winning), once the upstream
 * refused it (401/403: until the config is reloaded, which builds a new rotation), or while it is
 * at its own limits. A conversation stays on the credential it started on while that one can
 * take calls, so the upstream's prompt cache for it keeps hitting.
 */
import type { CredentialConfig } from '../../config/types.js';
import { GatewayError } from '../../errors.js';
import type { Admission } from '../../limits/limit-store.js';
import { createMemoryLimitStore } from '../../limits/memory-store.js';

/** A cool-down for a 429/529 answer that names no `retry-after`. */
export const DEFAULT_COOL_DOWN_MS = 30_000;
/** Conversations remembered per provider, the least recently used forgotten first. */
const AFFINITY_ENTRIES = 10_000;

/** The credential a call goes with; `settle` once, with the tokens it used (for `tokensPerMinute`). */
export interface CredentialPick {
  readonly name: string;
  settle(tokens: number): void;
}

/** Where a credential stands: taking calls, cooling down after a 429/529, or refused by the upstream until a reload. */
export type CredentialStanding = 'ready' | 'cooling' | 'refused';

export interface Rotation {
  /** Each credential's standing now, in the config's order (for the metrics). */
  standings(): { readonly name: string; readonly standing: CredentialStanding }[];
  /** The credential for the next call; throws a 429 GatewayError when none can take one. */
  pick(affinity: string | undefined): CredentialPick;
  /** What the upstream answered a call made with `name`. */
  observe(name: string, status: number, retryAfterMs: number | undefined): void;
  /** Stops hearing the other gateways' cool-downs (the provider is closed). */
  close(): void;
}

/**
 * The other gateways sharing a Redis (`state.redis`), which tell each other of a credential cooling
 * down after a 429/529, so that none of them sends it calls the upstream would refuse. Undefined: this
 * gateway alone.
 */
export interface CooldownPeers {
  /** `credential` of `provider` cools down for `ms`: the other gateways hear of it. */
  report(provider: string, credential: string, ms: number): void;
  /** Calls `cool` for each cool-down another gateway reports for `provider`; returns how to stop. */
  listen(provider: string, cool: (credential: string, ms: number) => void): () => void;
}

interface Entry {
  readonly config: CredentialConfig;
  /** Smooth weighted round robin's running weight. */
  current: number;
  coolingUntil: number;
  refused: boolean;
}

export function createRotation(
  providerId: string,
  credentials: readonly CredentialConfig[],
  clock: () => number = Date.now,
  peers?: CooldownPeers,
): Rotation {
  const entries = credentials.map((config): Entry => ({ config, current: 0, coolingUntil: 0, refused: false }));
  const byName = new Map(entries.map((e) => [e.config.name, e]));
  const cool = (e: Entry, ms: number) => {
    e.coolingUntil = Math.max(e.coolingUntil, clock() + ms);
  };
  const stopListening = peers?.listen(providerId, (name, ms) => {
    const e = byName.get(name);
    if (e) cool(e, ms);
  });
  const limits = createMemoryLimitStore(clock);
  const affinity = new Map<string, string>();

  const usable = (e: Entry, now: number) => !e.refused && e.coolingUntil <= now;
  /** Lets a call through the credential's own limits: its admission, or the ms until it may take one. */
  const admit = (e: Entry, now: number): Admission | number => {
    const l = e.config.limits;
    if (l.requestsPerMinute === undefined && l.tokensPerMinute === undefined) return NO_LIMITS;
    const decision = limits.admit(e.config.name, l, now);
    return decision.ok ? decision.admission : decision.retryAfterMs;
  };
  const picked = (e: Entry, admission: Admission, key: string | undefined): CredentialPick => {
    if (key !== undefined) remember(affinity, key, e.config.name);
    let settled = false;
    return {
      name: e.config.name,
      settle(tokens) {
        if (settled) return;
        settled = true;
        admission.end(tokens);
      },
    };
  };

  return {
    standings() {
      const now = clock();
      return entries.map((e) => ({ name: e.config.name, standing: e.refused ? 'refused' : e.coolingUntil > now ? 'cooling' : 'ready' }));
    },
    pick(key) {
      const now = clock();
      let wait = Number.POSITIVE_INFINITY;
      const sticky = key === undefined ? undefined : byName.get(affinity.get(key) ?? '');
      if (sticky && usable(sticky, now)) {
        const admission = admit(sticky, now);
        if (typeof admission !== 'number') return picked(sticky, admission, key);
        wait = admission;
      }
      // Tiers by priority, best first; in each, the weighted order, until one admits the call.
      const candidates = entries.filter((e) => e !== sticky && usable(e, now));
      for (const priority of [...new Set(candidates.map((e) => e.config.priority))].sort((a, b) => a - b)) {
        const tier = candidates.filter((e) => e.config.priority === priority);
        while (tier.length > 0) {
          const e = nextByWeight(tier);
          const admission = admit(e, now);
          if (typeof admission !== 'number') return picked(e, admission, key);
          wait = Math.min(wait, admission);
          tier.splice(tier.indexOf(e), 1);
        }
      }
      for (const e of entries) if (!e.refused && e.coolingUntil > now) wait = Math.min(wait, e.coolingUntil - now);
      throw noneAvailable(providerId, entries.length, Number.isFinite(wait) ? wait : undefined);
    },
    observe(name, status, retryAfterMs) {
      const e = byName.get(name);
      if (!e) return;
      if (status === 401 || status === 403) e.refused = true;
      else if (status === 429 || status === 529) {
        const ms = retryAfterMs ?? DEFAULT_COOL_DOWN_MS;
        cool(e, ms);
        peers?.report(providerId, name, ms);
      }
    },
    close() {
      stopListening?.();
    },
  };
}

const NO_LIMITS: Admission = { end() {} };

/** Smooth weighted round robin over `tier`: each gains its weight, the highest goes and pays the total. */
function nextByWeight(tier: readonly Entry[]): Entry {
  let best = tier[0]!;
  let total = 0;
  for (const e of tier) {
    e.current += e.config.weight;
    total += e.config.weight;
    if (e.current > best.current) best = e;
  }
  best.current -= total;
  return best;
}

function remember(affinity: Map<string, string>, key: string, name: string): void {
  affinity.delete(key);
  affinity.set(key, name);
  if (affinity.size > AFFINITY_ENTRIES) affinity.delete(affinity.keys().next().value!);
}

function noneAvailable(providerId: string, count: number, waitMs: number | undefined): GatewayError {
  if (waitMs === undefined) {
    // Every one was refused: the operator's problem, as a single refused credential is (upstream-error.ts).
    return new GatewayError(
      'upstream_error',
      `Provider '${providerId}' refused all ${count} of the gateway's credentials. Your gateway key was accepted; the operator should check providers.${providerId}.credentials.`,
      { headers: { 'x-should-retry': 'false' } },
    );
  }
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new GatewayError('rate_limit', `None of provider '${providerId}''s ${count} credentials can take a request now; retry in ${seconds}s.`, {
    code: 'credentials_exhausted',
    headers: { 'retry-after': String(seconds), 'retry-after-ms': String(Math.ceil(waitMs)) },
  });
}
