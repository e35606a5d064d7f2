import { describe, expect, it } from 'vitest';
import type { Decision } from './limit-store.js';
import { createMemoryLimitStore } from './memory-store.js';

const admitted = (d: Decision | Promise<Decision>) => {
  if (d instanceof Promise || !d.ok) throw new Error(`refused: ${JSON.stringify(d)}`);
  return d.admission;
};
const refused = (d: Decision | Promise<Decision>) => {
  if (d instanceof Promise || d.ok) throw new Error('admitted');
  return d;
};

describe('memory limit store', () => {
  it('requestsPerMinute: a burst up to the limit, then 429 with the wait for one more token', () => {
    const store = createMemoryLimitStore();
    const limits = { requestsPerMinute: 3 };
    for (let i = 0; i < 3; i++) admitted(store.admit('g', limits, 0)).end(0);
    const no = refused(store.admit('g', limits, 0));
    expect(no).toMatchObject({ limit: 'requestsPerMinute', value: 3, retryAfterMs: 20_000 });
    // 20 s later one token has come back: exactly one more request.
    admitted(store.admit('g', limits, 20_000)).end(0);
    expect(refused(store.admit('g', limits, 20_000)).retryAfterMs).toBe(20_000);
  });

  it('groups are independent', () => {
    const store = createMemoryLimitStore();
    admitted(store.admit('a', { requestsPerMinute: 1 }, 0));
    refused(store.admit('a', { requestsPerMinute: 1 }, 0));
    admitted(store.admit('b', { requestsPerMinute: 1 }, 0));
  });

  it('concurrentRequests: refused while the limit is in progress, admitted again once one ends', () => {
    const store = createMemoryLimitStore();
    const limits = { concurrentRequests: 2 };
    const a = admitted(store.admit('g', limits, 0));
    admitted(store.admit('g', limits, 0));
    expect(refused(store.admit('g', limits, 0))).toMatchObject({ limit: 'concurrentRequests', value: 2 });
    a.end(0);
    a.end(0); // ending twice frees one slot, not two
    admitted(store.admit('g', limits, 0));
    refused(store.admit('g', limits, 0));
  });

  it('tokensPerMinute: refused once the last minute reported the limit, until those tokens age out', () => {
    let now = 10_000;
    const store = createMemoryLimitStore(() => now);
    const limits = { tokensPerMinute: 1000 };
    admitted(store.admit('g', limits, now)).end(600);
    now = 15_500;
    admitted(store.admit('g', limits, now)).end(500);
    const no = refused(store.admit('g', limits, now));
    // The 600 tokens of second 10 leave the window at 70 s.
    expect(no).toMatchObject({ limit: 'tokensPerMinute', value: 1000, retryAfterMs: 70_000 - 15_500 });
    now = 70_000;
    admitted(store.admit('g', limits, now)).end(0);
    // Second 15's 500 alone are under the limit; add 500 more and it is reached again, until 75 s.
    admitted(store.admit('g', limits, now)).end(500);
    expect(refused(store.admit('g', limits, now)).retryAfterMs).toBe(5000);
  });

  it('a raised limit applies at once', () => {
    const store = createMemoryLimitStore();
    admitted(store.admit('g', { concurrentRequests: 1 }, 0));
    refused(store.admit('g', { concurrentRequests: 1 }, 0));
    admitted(store.admit('g', { concurrentRequests: 2 }, 0));
  });
});
