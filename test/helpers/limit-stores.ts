/**
 * `LimitStore` implementations for tests that need a store answering as a network one would:
 * later, through a promise, or not at all. They are real implementations of the interface
 * (the gateway cannot tell them from a Redis-backed store), wrapping the in-memory store.
 */
import type { Admission, Decision, LimitStore } from '#src/limits/limit-store.js';

export interface CountingStore extends LimitStore {
  /** Admissions granted so far. */
  readonly admitted: number;
  /** Calls to an admission's end(), every call counted (a second end of one admission shows here). */
  readonly ended: number;
  /** Decisions asked for whose answer has not arrived yet. */
  readonly deciding: number;
}

/** `inner` behind a promise that settles `delayMs` after each question, counting admissions and their ends. */
export function delayedLimitStore(inner: LimitStore, delayMs: number): CountingStore {
  let admitted = 0;
  let ended = 0;
  let deciding = 0;
  const counted = (decision: Decision): Decision => {
    if (!decision.ok) return decision;
    admitted++;
    const admission: Admission = {
      end(tokens) {
        ended++;
        decision.admission.end(tokens);
      },
    };
    return { ok: true, admission };
  };
  return {
    get admitted() {
      return admitted;
    },
    get ended() {
      return ended;
    },
    get deciding() {
      return deciding;
    },
    admit(group, limits, now) {
      deciding++;
      return new Promise<void>((resolve) => setTimeout(resolve, delayMs)).then(async () => {
        // Decided when the answer is sent, as a store across the network decides on its own side.
        try {
          return counted(await inner.admit(group, limits, now));
        } finally {
          deciding--;
        }
      });
    },
  };
}

/** A store whose every question fails: `reject` answers a rejected promise (a lost connection), `throw` throws at once. */
export function failingLimitStore(how: 'reject' | 'throw'): LimitStore & { readonly asked: number } {
  let asked = 0;
  const failure = () => new Error('connect ECONNREFUSED 127.0.0.1:6379');
  return {
    get asked() {
      return asked;
    },
    admit() {
      asked++;
      if (how === 'throw') throw failure();
      return Promise.reject(failure());
    },
  };
}
