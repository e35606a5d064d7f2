/**
 * A request whose key group has limits and which answers to budgets, with both kept in Redis: its
 * admission and its reservation are decided by one script (one round trip, atomic across gateways),
 * and its end and its settling go to Redis as one script too (admission-scripts.ts). The pipeline
 * then asks for both once the body is read (pipeline/budget.ts), where a reservation can be priced.
 *
 * Each store keeps what it holds (slots, reservations) and pushes it back as when asked alone; only
 * the commands are joined. While Redis is down, or when the script fails, the two stores are asked
 * one after the other, each behind its own `state.onRedisDown` policy (limits/shared-store.ts,
 * budgets/shared-store.ts).
 */
import type { BudgetCounter, BudgetDecision, BudgetStore, Reservation } from '../budgets/budget-store.js';
import type { RedisBudgetStore } from '../budgets/redis-store.js';
import type { GroupLimits } from '../config/types.js';
import type { Admission, Decision, LimitStore } from '../limits/limit-store.js';
import type { EndSender, RedisLimitStore } from '../limits/redis-store.js';
import { ADMIT_RESERVE, END_SETTLE } from './admission-scripts.js';
import type { RedisConnection } from './redis-connection.js';
import { UnreadableReply } from './redis-errors.js';

export type JointDecision =
  | { readonly ok: true; readonly admission: Admission; readonly reservation: Reservation }
  | { readonly ok: false; readonly by: 'limit'; readonly decision: Extract<Decision, { ok: false }> }
  | { readonly ok: false; readonly by: 'budget'; readonly decision: Extract<BudgetDecision, { ok: false }> };

/** What a request reserves: its largest cost on each of its budgets' counters. */
export interface JointReservation {
  readonly counters: readonly BudgetCounter[];
  readonly usd: number;
}

export interface JointStore {
  /** Admits a request of `group` and reserves on its budgets, both or neither. */
  admit(group: string, limits: GroupLimits, reservation: JointReservation): Promise<JointDecision>;
}

export function jointStore(
  connection: Pick<RedisConnection, 'client' | 'up' | 'failed'>,
  redis: { readonly limits: RedisLimitStore; readonly budgets: RedisBudgetStore },
  alone: { readonly limits: LimitStore; readonly budgets: BudgetStore },
): JointStore {
  const client = connection.client;
  for (const s of [ADMIT_RESERVE, END_SETTLE]) client.defineCommand(s.name, { lua: s.lua });
  const scripted = client as unknown as Record<string, (...args: (string | number)[]) => Promise<unknown>>;
  const run = (name: string, keys: readonly string[], args: readonly (string | number)[]): void => {
    scripted[name]!(keys.length, ...keys, ...args).catch(connection.failed);
  };

  /**
   * The end and the settling of one request, sent as one script: the pipeline ends both in the same turn
   * (the response's close), so the first waits for the rest of that turn. A part not given by then goes
   * as nothing to do, and alone when it comes.
   */
  const endsOf = (limitKeys: readonly string[]) => {
    let end: [readonly string[], readonly (string | number)[]] | undefined;
    let settle: [readonly string[], readonly (string | number)[]] | undefined;
    let queued = false;
    const flush = () => {
      queued = false;
      const e = end ?? [[limitKeys[1]!, limitKeys[2]!], ['', '', 0]];
      const s = settle ?? [[], []];
      end = undefined;
      settle = undefined;
      run(END_SETTLE.name, [...e[0], ...s[0]], [...e[1], ...s[1]]);
    };
    const queue = () => {
      if (queued) return;
      queued = true;
      queueMicrotask(flush);
    };
    const ends: EndSender = (keys, args) => {
      end = [keys, args];
      queue();
    };
    const settles: EndSender = (keys, args) => {
      settle = [keys, args];
      queue();
    };
    return { ends, settles };
  };

  const together = (group: string, limits: GroupLimits, r: JointReservation): Promise<JointDecision> => {
    const now = Date.now();
    const l = redis.limits.part(group, limits, now);
    const b = redis.budgets.part(r.counters, r.usd, now);
    const keys = [...l.keys, ...b.keys];
    return scripted[ADMIT_RESERVE.name]!(keys.length, ...keys, ...l.args, ...b.args).then((reply): JointDecision => {
      if (Array.isArray(reply) && reply[0] === 2) {
        const refused = b.decided([0, reply[1], reply[2]]);
        if (refused.ok) throw new UnreadableReply('admission');
        return { ok: false, by: 'budget', decision: refused };
      }
      const { ends, settles } = endsOf(l.keys);
      const admitted = l.decided(reply, ends);
      if (!admitted.ok) return { ok: false, by: 'limit', decision: admitted };
      const reserved = b.decided(reply, settles);
      if (!reserved.ok) throw new UnreadableReply('admission');
      return { ok: true, admission: admitted.admission, reservation: reserved.reservation };
    });
  };

  /** Each store asked alone, behind its policy; an admission whose reservation is refused or fails is ended. */
  const separately = async (group: string, limits: GroupLimits, r: JointReservation): Promise<JointDecision> => {
    const admitted = await alone.limits.admit(group, limits, Date.now());
    if (!admitted.ok) return { ok: false, by: 'limit', decision: admitted };
    let reserved: BudgetDecision;
    try {
      reserved = await alone.budgets.reserve(r.counters, r.usd, Date.now());
    } catch (err) {
      admitted.admission.end(0);
      throw err;
    }
    if (!reserved.ok) {
      admitted.admission.end(0);
      return { ok: false, by: 'budget', decision: reserved };
    }
    return { ok: true, admission: admitted.admission, reservation: reserved.reservation };
  };

  return {
    admit(group, limits, r) {
      if (!connection.up) return separately(group, limits, r);
      return together(group, limits, r).catch((err: unknown) => {
        connection.failed(err);
        return separately(group, limits, r);
      });
    },
  };
}
