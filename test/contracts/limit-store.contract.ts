/**
 * What every `LimitStore` must do, as one suite run once per implementation (one
 * `*.test.ts` per store calls `runLimitStoreContract`). The suite reads decisions
 * with `await`, so a store answering at once and one answering through a promise run the
 * same tests; the last block runs the gateway's own admission (`takePlace`) over the store,
 * in every order its answer and the client's leaving can happen.
 */
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '#src/config/parse.js';
import type { GroupLimits, KeyGroupConfig } from '#src/config/types.js';
import { GatewayError } from '#src/errors.js';
import type { Admission, Decision, LimitStore } from '#src/limits/limit-store.js';
import { createLogger } from '#src/log/logger.js';
import { takePlace } from '#src/pipeline/admit.js';
import { newServerLoad } from '#src/pipeline/context.js';
import { testConfig } from '../helpers/start-gateway.js';

export interface LimitStoreContract {
  /** A fresh store; `clock` is the time it files reported tokens under. */
  readonly newStore: (clock: () => number) => LimitStore;
  /** Answers through promises: then the client can leave before the answer arrives. */
  readonly async: boolean;
  /** Names of tests this implementation does not run, each for a stated reason. */
  readonly skip?: readonly string[];
}

export function runLimitStoreContract(name: string, contract: LimitStoreContract): void {
  const test = (title: string, body: () => Promise<void>) => (contract.skip?.includes(title) ? it.skip : it)(title, body);

  const admitted = async (d: Decision | Promise<Decision>): Promise<Admission> => {
    const decision = await d;
    if (!decision.ok) throw new Error(`refused: ${JSON.stringify(decision)}`);
    return decision.admission;
  };
  const refused = async (d: Decision | Promise<Decision>) => {
    const decision = await d;
    if (decision.ok) throw new Error('admitted');
    return decision;
  };

  describe(`LimitStore contract: ${name}`, () => {
    test('requestsPerMinute: a burst up to the limit, then refused with the wait for one more token', async () => {
      const store = contract.newStore(() => 0);
      const limits = { requestsPerMinute: 3 };
      for (let i = 0; i < 3; i++) (await admitted(store.admit('g', limits, 0))).end(0);
      expect(await refused(store.admit('g', limits, 0))).toMatchObject({ limit: 'requestsPerMinute', value: 3, retryAfterMs: 20_000 });
      // 20 s later one token has come back: exactly one more request.
      (await admitted(store.admit('g', limits, 20_000))).end(0);
      expect((await refused(store.admit('g', limits, 20_000))).retryAfterMs).toBe(20_000);
    });

    test('concurrentRequests: refused while the limit is in progress, admitted again once one ends', async () => {
      const store = contract.newStore(() => 0);
      const limits = { concurrentRequests: 2 };
      const a = await admitted(store.admit('g', limits, 0));
      await admitted(store.admit('g', limits, 0));
      expect(await refused(store.admit('g', limits, 0))).toMatchObject({ limit: 'concurrentRequests', value: 2 });
      a.end(0);
      await admitted(store.admit('g', limits, 0));
      await refused(store.admit('g', limits, 0));
    });

    test('tokensPerMinute: refused once the last minute reported the limit, until those tokens age out', async () => {
      let now = 10_000;
      const store = contract.newStore(() => now);
      const limits = { tokensPerMinute: 1000 };
      (await admitted(store.admit('g', limits, now))).end(600);
      now = 15_500;
      (await admitted(store.admit('g', limits, now))).end(500);
      // The 600 tokens of second 10 leave the window at 70 s.
      expect(await refused(store.admit('g', limits, now))).toMatchObject({ limit: 'tokensPerMinute', value: 1000, retryAfterMs: 70_000 - 15_500 });
      now = 70_000;
      (await admitted(store.admit('g', limits, now))).end(0);
      // Second 15's 500 alone are under the limit; 500 more reach it again, until 75 s.
      (await admitted(store.admit('g', limits, now))).end(500);
      expect((await refused(store.admit('g', limits, now))).retryAfterMs).toBe(5000);
    });

    test('end() counts once: an admission ended twice gives back one concurrency place', async () => {
      const store = contract.newStore(() => 0);
      const limits = { concurrentRequests: 2 };
      const a = await admitted(store.admit('g', limits, 0));
      await admitted(store.admit('g', limits, 0));
      a.end(0);
      a.end(0);
      // One place was given back, not two: one more fits, the next does not.
      await admitted(store.admit('g', limits, 0));
      await refused(store.admit('g', limits, 0));
    });

    test('end() counts once: an admission ended twice reports its tokens once', async () => {
      const store = contract.newStore(() => 1000);
      const limits = { tokensPerMinute: 1000 };
      const a = await admitted(store.admit('g', limits, 1000));
      a.end(600);
      a.end(600);
      // 600 reported, not 1200: under the limit, until 400 more arrive.
      (await admitted(store.admit('g', limits, 1000))).end(399);
      (await admitted(store.admit('g', limits, 1000))).end(1);
      await refused(store.admit('g', limits, 1000));
    });

    // Each limit reached for group 'g' at time 0; `waited` is whether waiting retryAfterMs is enough by itself.
    const reached: { limit: keyof GroupLimits; limits: GroupLimits; fill: (store: LimitStore) => Promise<void>; waited: boolean }[] = [
      {
        limit: 'requestsPerMinute',
        limits: { requestsPerMinute: 7 },
        fill: async (s) => {
          for (let i = 0; i < 7; i++) (await admitted(s.admit('g', { requestsPerMinute: 7 }, 0))).end(0);
        },
        waited: true,
      },
      {
        limit: 'concurrentRequests',
        limits: { concurrentRequests: 1 },
        fill: async (s) => void (await admitted(s.admit('g', { concurrentRequests: 1 }, 0))),
        waited: false,
      },
      {
        limit: 'tokensPerMinute',
        limits: { tokensPerMinute: 100 },
        fill: async (s) => (await admitted(s.admit('g', { tokensPerMinute: 100 }, 0))).end(250),
        waited: true,
      },
    ];

    for (const { limit, limits, fill, waited } of reached) {
      test(`retryAfterMs: a refusal by ${limit} names it and waits a positive whole time within a minute`, async () => {
        const store = contract.newStore(() => 0);
        await fill(store);
        const no = await refused(store.admit('g', limits, 0));
        expect(no.limit).toBe(limit);
        expect(no.value).toBe(Object.values(limits)[0]);
        expect(Number.isInteger(no.retryAfterMs)).toBe(true);
        expect(no.retryAfterMs).toBeGreaterThan(0);
        expect(no.retryAfterMs).toBeLessThanOrEqual(60_000);
        // Asking again at once changes nothing; asking after the wait is admitted where time alone frees the limit.
        expect((await refused(store.admit('g', limits, 0))).retryAfterMs).toBe(no.retryAfterMs);
        if (waited) await admitted(store.admit('g', limits, no.retryAfterMs));
      });

      test(`groups are independent: group 'g' at its ${limit} leaves group 'h' free`, async () => {
        const store = contract.newStore(() => 0);
        await fill(store);
        await refused(store.admit('g', limits, 0));
        await admitted(store.admit('h', limits, 0));
      });
    }

    test('a raised limit applies at once', async () => {
      const store = contract.newStore(() => 0);
      await admitted(store.admit('g', { concurrentRequests: 1 }, 0));
      await refused(store.admit('g', { concurrentRequests: 1 }, 0));
      await admitted(store.admit('g', { concurrentRequests: 2 }, 0));
    });

    test('a refusal takes nothing: requests refused by one limit do not use up another', async () => {
      const store = contract.newStore(() => 0);
      const limits = { requestsPerMinute: 2, concurrentRequests: 1 };
      const a = await admitted(store.admit('g', limits, 0));
      for (let i = 0; i < 5; i++) expect((await refused(store.admit('g', limits, 0))).limit).toBe('concurrentRequests');
      a.end(0);
      // The second of the two requests per minute is still there.
      await admitted(store.admit('g', limits, 0));
    });
  });

  describe(`the gateway's admission over ${name}: each admission ended once, whatever the order`, () => {
    const config = parseConfig(testConfig('http://127.0.0.1:1'), { env: {} });
    const group = (limits: GroupLimits): KeyGroupConfig => ({ ...config.keyGroups.get('dev')!, limits });
    const setup = () => {
      const store = contract.newStore(() => 0);
      const load = newServerLoad();
      const logged: string[] = [];
      const logger = createLogger({ out: { write: (s: string) => logged.push(s) }, chalk: new Chalk({ level: 0 }), verbose: false });
      return { store, load, logged, place: () => takePlace({ load, limits: store, logger }, config.server) };
    };
    const one = group({ concurrentRequests: 1 });

    const orders: { order: string; async?: true; run: (place: ReturnType<typeof takePlace>) => Promise<void> }[] = [
      {
        order: 'admitted, then the client leaves',
        run: async (place) => {
          const answer = place.admit(one);
          if (answer) expect(await answer).toBe(true);
          place.leave(12);
        },
      },
      {
        order: 'admitted, then leave runs twice',
        run: async (place) => {
          const answer = place.admit(one);
          if (answer) expect(await answer).toBe(true);
          place.leave(0);
          place.leave(0);
        },
      },
      {
        order: 'the client leaves while the store decides',
        async: true,
        run: async (place) => {
          const answer = place.admit(one);
          place.leave(0);
          // Admitted after the client left: ended at once, and the request goes no further.
          expect(await answer).toBe(false);
        },
      },
      {
        order: 'the client leaves while the store decides, and leave runs again after',
        async: true,
        run: async (place) => {
          const answer = place.admit(one);
          place.leave(0);
          expect(await answer).toBe(false);
          place.leave(0);
        },
      },
    ];
    for (const { order, async, run } of orders) {
      (async && !contract.async ? it.skip : it)(order, async () => {
        const { load, place } = setup();
        await run(place());
        expect(load.active).toBe(0);
        // Its one place was given back, once: the next request fits, and the one after it does not.
        const next = place();
        const answer = next.admit(one);
        if (answer) expect(await answer).toBe(true);
        const after = place();
        await expect(Promise.resolve().then(() => after.admit(one))).rejects.toMatchObject({ kind: 'rate_limit' });
        after.leave(0);
        next.leave(0);
        expect(load.active).toBe(0);
      });
    }

    it('refused while the client is there: 429 naming the limit, and the server count is given back once on leaving', async () => {
      const { load, place } = setup();
      const first = place();
      const answer = first.admit(one);
      if (answer) await answer;
      const second = place();
      await expect(Promise.resolve().then(() => second.admit(one))).rejects.toSatisfy(
        (err: unknown) => err instanceof GatewayError && err.kind === 'rate_limit' && /1 concurrent requests/.test(err.message),
      );
      second.leave(0);
      second.leave(0);
      first.leave(0);
      expect(load.active).toBe(0);
    });
  });
}
