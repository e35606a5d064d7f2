import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/parse.js';
import { GatewayError } from '../errors.js';
import type { LimitStore } from '../limits/limit-store.js';
import { createLogger } from '../log/logger.js';
import { newServerLoad } from './context.js';
import { failingLimitStore } from '../../test/helpers/limit-stores.js';
import { testConfig } from '../../test/helpers/start-gateway.js';
import { takePlace } from './admit.js';

const config = parseConfig(testConfig('http://127.0.0.1:1'), { env: {} });
const group = { ...config.keyGroups.get('dev')!, limits: { concurrentRequests: 1 } };

function setup(store: LimitStore) {
  const load = newServerLoad();
  const logged: string[] = [];
  const logger = createLogger({ out: { write: (s: string) => logged.push(s) }, chalk: new Chalk({ level: 0 }), verbose: false });
  const written = () => {
    logger.flush();
    return logged.join('');
  };
  return { load, logged: written, place: () => takePlace({ load, limits: store, logger }, config.server) };
}

describe('takePlace over a store that fails', () => {
  for (const how of ['reject', 'throw'] as const) {
    it(`${how}: a 503 naming the limit store, its cause logged, the server's place given back on leaving`, async () => {
      const { load, logged, place } = setup(failingLimitStore(how));
      const p = place();
      const err: unknown = await Promise.resolve()
        .then(() => p.admit(group))
        .then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(GatewayError);
      expect(err).toMatchObject({ kind: 'overloaded', status: 503, code: 'limit_store_unavailable', headers: { 'retry-after': '1' } });
      expect((err as Error).message).not.toMatch(/ECONNREFUSED/);
      expect(logged()).toMatch(/the limit store failed: connect ECONNREFUSED/);
      p.leave(0);
      expect(load.active).toBe(0);
    });
  }

  // An admission's end runs in the response's close listener: a throw there would skip the rest of the request's bookkeeping.
  const ends: { what: string; fail: () => never }[] = [
    { what: 'an Error', fail: () => { throw new Error('socket closed'); } },
    { what: 'a string', fail: () => { throw 'socket closed'; } },
  ];
  for (const { what, fail } of ends) {
    it(`an admission whose end() throws ${what}: logged, and leave still gives the server's place back`, async () => {
      const store: LimitStore = { admit: () => Promise.resolve({ ok: true, admission: { end: fail } }) };
      const { load, logged, place } = setup(store);
      const p = place();
      expect(await p.admit(group)).toBe(true);
      expect(() => p.leave(10)).not.toThrow();
      expect(load.active).toBe(0);
      expect(logged()).toMatch(/the limit store failed to end an admission: socket closed/);
    });
  }
});
