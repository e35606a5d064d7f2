/** The LimitStore contract over a store answering later, as one across the network does. */
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '#src/config/parse.js';
import { createMemoryLimitStore } from '#src/limits/memory-store.js';
import { createLogger } from '#src/log/logger.js';
import { takePlace } from '#src/pipeline/admit.js';
import { newServerLoad } from '#src/pipeline/context.js';
import { delayedLimitStore } from '../helpers/limit-stores.js';
import { testConfig } from '../helpers/start-gateway.js';
import { runLimitStoreContract } from './limit-store.contract.js';

runLimitStoreContract('delayed (answers through a promise)', { newStore: (clock) => delayedLimitStore(createMemoryLimitStore(clock), 5), async: true });

describe('a store answering after the client left', () => {
  const config = parseConfig(testConfig('http://127.0.0.1:1'), { env: {} });
  const group = { ...config.keyGroups.get('dev')!, limits: { concurrentRequests: 1 } };
  const logger = createLogger({ out: { write: () => true }, chalk: new Chalk({ level: 0 }), verbose: false });

  // How many requests leave before their answer: the store's count of ends must match its admissions every time.
  for (const leaving of [1, 3, 10]) {
    it(`${leaving} request(s) leaving while deciding: every admission granted is ended exactly once`, async () => {
      const store = delayedLimitStore(createMemoryLimitStore(), 20);
      const load = newServerLoad();
      const places = Array.from({ length: leaving }, () => takePlace({ load, limits: store, logger }, config.server));
      const answers = places.map((p) => Promise.resolve(p.admit(group)).catch((err: unknown) => err));
      for (const p of places) p.leave(0);
      expect(store.deciding).toBe(leaving);
      const settled = await Promise.all(answers);
      // Each was admitted in turn (the one before had been ended on arrival, freeing the one place), and went no further.
      expect(settled).toEqual(Array(leaving).fill(false));
      expect(store.admitted).toBe(leaving);
      expect(store.ended).toBe(leaving);
      expect(load.active).toBe(0);
    });
  }
});
