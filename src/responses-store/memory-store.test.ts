import { describe, expect, it } from 'vitest';
import { createMemoryResponsesStore } from './memory-store.js';
import type { StoredResponse } from './store.js';

const answer = (id: string, text = 'x'): StoredResponse => ({
  id,
  input: [{ type: 'message', role: 'user', content: text }],
  output: [{ id: `msg_${id}`, type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }],
});
const bytesOf = (r: StoredResponse) => Buffer.byteLength(JSON.stringify(r));
const HOUR = 3_600_000;

describe('memory responses store', () => {
  it('gives back an answer and its output items to its own key group only', () => {
    const store = createMemoryResponsesStore();
    store.put('a', answer('r1'), { maxBytes: 1 << 20, ttlMs: HOUR }, 0);
    expect(store.response('a', 'r1', 1)).toEqual(answer('r1'));
    expect(store.item('a', 'msg_r1', 1)).toEqual(answer('r1').output[0]);
    expect(store.response('b', 'r1', 1)).toBeUndefined();
    expect(store.item('b', 'msg_r1', 1)).toBeUndefined();
  });

  it.each([
    ['just before', HOUR - 1, true],
    ['at', HOUR, false],
    ['after', HOUR + 1, false],
  ])('an answer asked for %s its expiry is %s found', (_when, at, found) => {
    const store = createMemoryResponsesStore();
    store.put('a', answer('r1'), { maxBytes: 1 << 20, ttlMs: HOUR }, 0);
    expect(store.item('a', 'msg_r1', at) !== undefined).toBe(found);
    expect(store.response('a', 'r1', at) !== undefined).toBe(found);
  });

  it('evicts the least recently used answers to stay within the byte cap', () => {
    const store = createMemoryResponsesStore();
    const settings = { maxBytes: bytesOf(answer('r1')) * 2, ttlMs: HOUR };
    store.put('a', answer('r1'), settings, 0);
    store.put('b', answer('r2'), settings, 0);
    // Reading r1 makes r2 the least recently used.
    expect(store.response('a', 'r1', 1)).toBeDefined();
    store.put('a', answer('r3'), settings, 2);
    expect(store.response('b', 'r2', 3)).toBeUndefined();
    expect(store.item('b', 'msg_r2', 3)).toBeUndefined();
    expect(store.response('a', 'r1', 3)).toBeDefined();
    expect(store.response('a', 'r3', 3)).toBeDefined();
  });

  it('keeps nothing larger than the whole cap, and evicts nothing for it', () => {
    const store = createMemoryResponsesStore();
    const settings = { maxBytes: bytesOf(answer('r1')) + 10, ttlMs: HOUR };
    store.put('a', answer('r1'), settings, 0);
    store.put('a', answer('big', 'y'.repeat(100)), settings, 0);
    expect(store.response('a', 'big', 1)).toBeUndefined();
    expect(store.response('a', 'r1', 1)).toBeDefined();
  });

  it('stores nothing with a cap of 0', () => {
    const store = createMemoryResponsesStore();
    store.put('a', answer('r1'), { maxBytes: 0, ttlMs: HOUR }, 0);
    expect(store.response('a', 'r1', 1)).toBeUndefined();
  });
});
