/**
 * Key-group limits kept in Redis, so that several gateways serving one team share them: the
 * same three limits as the memory store, decided by one script per admission (one round trip,
 * atomic across gateways, on Redis's clock; see redis-scripts.ts). Ending an admission is one
 * more command, sent only when there is something to give back (a concurrency slot) or to count
 * (tokens, for a group with a tokens-per-minute limit).
 *
 * A concurrency slot lives `slotTtlMs` unless pushed back: one timer per store pushes back every
 * slot this gateway holds, a group per command, every third of that time, so a gateway that
 * crashes holds its slots no longer than `slotTtlMs`.
 *
 * Errors are not handled here: a failed admission rejects (the policy in shared-store.ts decides
 * what that means), and a failed end is reported to the connection, the slot then expiring.
 */
import { randomBytes } from 'node:crypto';
import type { GroupLimits } from '../config/types.js';
import type { RedisConnection } from '../state/redis-connection.js';
import { UnreadableReply } from '../state/redis-errors.js';
import type { Admission, Decision, LimitName, LimitStore } from './limit-store.js';
import { ADMIT, END, REFRESH, type Script } from './redis-scripts.js';

/** How long a slot outlives the last sign of life of the gateway holding it. */
export const DEFAULT_SLOT_TTL_MS = 30_000;

export interface RedisLimitStoreOptions {
  readonly connection: Pick<RedisConnection, 'client' | 'failed'>;
  readonly keyPrefix: string;
  readonly slotTtlMs?: number;
  /**
   * Tests only: the caller's times instead of Redis's (an admission at the `now` it is asked
   * with, tokens filed under `clock()`), so that a test can move time.
   */
  readonly clock?: () => number;
}

export interface RedisLimitStore extends LimitStore {
  admit(group: string, limits: GroupLimits, now: number): Promise<Decision>;
  /** An admission as the part of a script that runs it with the budgets' reservation (state/admission.ts). */
  part(group: string, limits: GroupLimits, now: number): LimitPart;
  /** Stops pushing back slots; the connection is its owner's to close. */
  close(): void;
}

/** The keys and arguments of the admission script (ADMIT), and what its reply means. */
export interface LimitPart {
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
  /**
   * The decision in the script's reply (which throws on anything else). `send` takes the end's own keys and
   * arguments (END's) when that is sent with another store's; by default the end sends END itself.
   */
  decided(reply: unknown, send?: EndSender): Decision;
}

/** Sends an ended admission's END keys and arguments, or a settled reservation's SETTLE ones. */
export type EndSender = (keys: readonly string[], args: readonly (string | number)[]) => void;

interface GroupKeys {
  readonly rpm: string;
  readonly slots: string;
  readonly tpm: string;
}

/** The admission script's refusals, by the number it names them with. */
const REFUSED_BY: readonly LimitName[] = ['tokensPerMinute', 'concurrentRequests', 'requestsPerMinute'];
/** No limit makes a request wait longer than a minute. */
const MINUTE_MS = 60_000;

export function createRedisLimitStore(options: RedisLimitStoreOptions): RedisLimitStore {
  const { connection, clock } = options;
  const client = connection.client;
  const ttl = options.slotTtlMs ?? DEFAULT_SLOT_TTL_MS;
  // Slot ids: this store's random id and a counter, unique across gateways without a round trip.
  const instance = randomBytes(8).toString('hex');
  let next = 0;
  const keys = new Map<string, GroupKeys>();
  const keysOf = (group: string): GroupKeys => {
    let k = keys.get(group);
    if (!k) {
      const base = `${options.keyPrefix}limits:{${group}}:`;
      k = { rpm: `${base}rpm`, slots: `${base}slots`, tpm: `${base}tpm` };
      keys.set(group, k);
    }
    return k;
  };
  /** The slots this gateway holds, by group's slot key: pushed back until ended. */
  const held = new Map<string, Set<string>>();
  let refresher: NodeJS.Timeout | undefined;

  // The client sends a defined script whole once per connection, then by its SHA1 (EVALSHA), and whole again
  // when Redis answers NOSCRIPT (it forgot it: SCRIPT FLUSH). Sending it whole first, rather than trying its
  // SHA1, keeps the commands of one connection in the order they were sent: an end, then the next admission.
  for (const s of [ADMIT, END, REFRESH]) client.defineCommand(s.name, { numberOfKeys: s.keys, lua: s.lua });
  const scripted = client as unknown as Record<string, (...args: (string | number)[]) => Promise<unknown>>;
  const run = (s: Script, keyList: readonly string[], args: readonly (string | number)[]): Promise<unknown> => scripted[s.name]!(...keyList, ...args);
  const time = (given: number): string | number => (clock ? given : '');

  const refresh = () => {
    for (const [slots, ids] of held) {
      if (ids.size === 0) {
        held.delete(slots);
        continue;
      }
      run(REFRESH, [slots], [time(clock?.() ?? 0), ttl, ...ids]).catch(connection.failed);
    }
    if (held.size === 0) {
      clearInterval(refresher);
      refresher = undefined;
    }
  };
  const hold = (slots: string, id: string) => {
    let ids = held.get(slots);
    if (!ids) {
      ids = new Set();
      held.set(slots, ids);
    }
    ids.add(id);
    refresher ??= setInterval(refresh, Math.max(1, Math.floor(ttl / 3))).unref();
  };

  const sendEnd: EndSender = (keys, args) => {
    run(END, keys, args).catch(connection.failed);
  };
  const admitted = (k: GroupKeys, slot: string | undefined, countsTokens: boolean, send: EndSender): Decision => {
    if (slot !== undefined) hold(k.slots, slot);
    let ended = false;
    const admission: Admission = {
      end(tokens) {
        if (ended) return;
        ended = true;
        if (slot !== undefined) held.get(k.slots)?.delete(slot);
        const reported = countsTokens && Number.isFinite(tokens) && tokens > 0 ? Math.round(tokens) : 0;
        if (slot === undefined && reported === 0) return;
        send([k.slots, k.tpm], [time(clock?.() ?? 0), slot ?? '', reported]);
      },
    };
    return { ok: true, admission };
  };

  const part = (group: string, limits: GroupLimits, now: number): LimitPart => {
    const k = keysOf(group);
    const slot = limits.concurrentRequests !== undefined ? `${instance}:${(next++).toString(36)}` : undefined;
    return {
      keys: [k.rpm, k.slots, k.tpm],
      args: [time(now), limits.requestsPerMinute ?? 0, limits.concurrentRequests ?? 0, limits.tokensPerMinute ?? 0, slot ?? '', ttl],
      decided(reply, send = sendEnd) {
        // Whatever answers on that port is read as hostile: anything but the script's two shapes is a failure.
        const [ok, which, wait] = Array.isArray(reply) ? (reply as unknown[]) : [];
        if (ok === 1) return admitted(k, slot, limits.tokensPerMinute !== undefined, send);
        const limit = typeof which === 'number' ? REFUSED_BY[which - 1] : undefined;
        if (ok !== 0 || limit === undefined || typeof wait !== 'number' || !Number.isFinite(wait)) {
          throw new UnreadableReply('admission');
        }
        return { ok: false, limit, value: limits[limit] ?? 0, retryAfterMs: Math.min(MINUTE_MS, Math.max(1, Math.ceil(wait))) };
      },
    };
  };

  return {
    admit(group, limits, now) {
      const p = part(group, limits, now);
      return run(ADMIT, p.keys, p.args).then((reply) => p.decided(reply));
    },
    part,
    close() {
      clearInterval(refresher);
      refresher = undefined;
      held.clear();
    },
  };
}
