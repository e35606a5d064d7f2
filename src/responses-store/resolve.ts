/**
 * A Responses request's references to stored answers, resolved into the items they name, so that
 * a translated route sends the whole history upstream: `previous_response_id` puts that answer's
 * input and output before the request's own input, and each `item_reference` item is replaced by
 * the stored item. An id the store does not hold (never stored, another key group's, expired or
 * evicted) is the caller's error, named, as OpenAI names it.
 */
import { invalidRequest } from '../errors.js';
import { isObject, type Json } from '../protocols/json.js';
import type { ResponsesStore } from './store.js';

/** Where to look: the store, the caller's key group, and the time. */
export interface Lookup {
  readonly store: ResponsesStore;
  readonly group: string;
  readonly now: number;
}

const isReference = (item: unknown): boolean => isObject(item) && item.type === 'item_reference';

/** Whether the request refers to anything stored. */
export function hasReferences(body: Json): boolean {
  if (body.previous_response_id != null) return true;
  return Array.isArray(body.input) && body.input.some(isReference);
}

/** `input` as a list of items: a plain string is one user message. */
export function inputItems(input: unknown): Json[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return Array.isArray(input) ? (input as Json[]) : [];
}

/** The body with its references resolved (`previous_response_id` kept, for the answer to echo); throws 400 for an id not held. */
export async function resolveReferences(body: Json, lookup: Lookup): Promise<Json> {
  const { store, group, now } = lookup;
  const earlier: Json[] = [];
  const previous = body.previous_response_id;
  if (previous != null) {
    if (typeof previous !== 'string' || previous === '') throw invalidRequest('`previous_response_id` must be a non-empty string.', 'previous_response_id');
    const stored = await store.response(group, previous, now);
    if (stored === undefined) {
      throw invalidRequest(
        `Previous response with id '${previous}' not found. The gateway keeps translated responses for a limited time and size ` +
          '(server.responsesStoreTtlMs, server.responsesStoreBytes); send the whole conversation in `input` instead.',
        'previous_response_id',
        'previous_response_not_found',
      );
    }
    earlier.push(...stored.input, ...stored.output);
  }
  const own = inputItems(body.input);
  const resolved: Json[] = [];
  for (const [i, item] of own.entries()) {
    if (!isReference(item)) {
      resolved.push(item);
      continue;
    }
    const id = item.id;
    if (typeof id !== 'string' || id === '') throw invalidRequest(`\`input[${i}].id\` must be a non-empty string.`, `input[${i}].id`);
    const found = await store.item(group, id, now);
    if (found === undefined) {
      throw invalidRequest(
        `Item with id '${id}' not found. The gateway keeps the items of translated responses for a limited time and size ` +
          '(server.responsesStoreTtlMs, server.responsesStoreBytes); send the item itself instead of a reference.',
        `input[${i}].id`,
      );
    }
    resolved.push(found);
  }
  return { ...body, input: [...earlier, ...resolved] };
}
