import { describe, expect, it } from 'vitest';
import { runLimitStoreContract } from '../../test/contracts/limit-store.contract.js';
import { createMemoryLimitStore } from './memory-store.js';

runLimitStoreContract('memory', { newStore: (clock) => createMemoryLimitStore(clock), async: false });

describe('memory limit store', () => {
  // The gateway awaits only a promise: a store answering at once costs a request no microtask turn.
  it('answers at once, for admissions and refusals alike', () => {
    const store = createMemoryLimitStore();
    const yes = store.admit('g', { concurrentRequests: 1 }, 0);
    const no = store.admit('g', { concurrentRequests: 1 }, 0);
    expect(yes).not.toBeInstanceOf(Promise);
    expect(no).not.toBeInstanceOf(Promise);
    expect([(yes as { ok: boolean }).ok, (no as { ok: boolean }).ok]).toEqual([true, false]);
  });
});
