import { describe, expect, it } from 'vitest';
import { createMemoryResponsesStore } from './memory-store.js';
import { resolveReferences } from './resolve.js';
import type { ResponsesStore } from './store.js';

const SETTINGS = { maxBytes: 1 << 20, ttlMs: 60_000 };
const asked = { type: 'message', role: 'user', content: 'hi' };
const said = { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] };

/** The memory store answering through promises, as a store across the network does. */
function later(store: ResponsesStore): ResponsesStore {
  return {
    response: async (...a) => store.response(...a),
    item: async (...a) => store.item(...a),
    put: async (...a) => store.put(...a),
  };
}

describe.each([
  ['answering at once', (s: ResponsesStore) => s],
  ['answering through a promise', later],
])('resolveReferences, a store %s', (_name, wrap) => {
  const store = createMemoryResponsesStore();
  store.put('g', { id: 'resp_1', input: [asked], output: [said] }, SETTINGS, 0);
  const lookup = { store: wrap(store), group: 'g', now: 1 };

  it.each([
    ['previous_response_id before a string input', { previous_response_id: 'resp_1', input: 'more' }, [asked, said, { type: 'message', role: 'user', content: 'more' }]],
    ['an item_reference in place', { input: [asked, { type: 'item_reference', id: 'msg_1' }, { role: 'user', content: 'more' }] }, [asked, said, { role: 'user', content: 'more' }]],
    ['both', { previous_response_id: 'resp_1', input: [{ type: 'item_reference', id: 'msg_1' }] }, [asked, said, said]],
  ])('%s', async (_case, body, input) => {
    expect(await resolveReferences(body, lookup)).toEqual({ ...body, input });
  });

  it.each([
    [{ previous_response_id: 'resp_2', input: 'x' }, 'previous_response_id', 'resp_2'],
    [{ previous_response_id: 'resp_1', input: [{ type: 'item_reference', id: 'msg_9' }] }, 'input[0].id', 'msg_9'],
    [{ previous_response_id: 'resp_1', input: 'x' }, 'previous_response_id', 'resp_1', 'other'],
  ])('%j is a 400 naming %s', async (body, param, id, group = 'g') => {
    await expect(resolveReferences(body, { ...lookup, group })).rejects.toMatchObject({ status: 400, param, message: expect.stringContaining(`'${id}'`) });
  });
});
