/**
 * Recent translated Responses answers, kept so that a caller may refer to them on a later turn
 * (`previous_response_id`, `item_reference` items), as it would with OpenAI, which keeps them
 * itself. Behind a small interface so several gateway instances could share them through a store
 * such as Redis; a store may answer synchronously (memory) or not (network). Each key group sees
 * only its own: a group's ids never resolve for another.
 */
import type { Json } from '../protocols/json.js';
import type { Protocol } from '../protocols/types.js';

/** One answer: the input items its request carried (its own references resolved) and the output items the caller got. */
export interface StoredResponse {
  /** The Responses `id` the caller got. */
  readonly id: string;
  readonly input: readonly Json[];
  readonly output: readonly Json[];
}

/** How much is kept and for how long; read from the config on each write, so a reload applies at once. */
export interface StoreSettings {
  /** Most bytes kept (as JSON) across all key groups; 0 keeps nothing. */
  readonly maxBytes: number;
  /** How long an answer is kept after it was stored, in milliseconds. */
  readonly ttlMs: number;
}

type Maybe<T> = T | Promise<T>;

export interface ResponsesStore {
  /** The answer stored as `id` for `group`; undefined when unknown, expired or evicted. */
  response(group: string, id: string, now: number): Maybe<StoredResponse | undefined>;
  /** The output item with this `id` of an answer stored for `group`. */
  item(group: string, id: string, now: number): Maybe<Json | undefined>;
  /** Keeps `response` for `group`, making room by evicting the answers least recently used. */
  put(group: string, response: StoredResponse, settings: StoreSettings, now: number): Maybe<void>;
}

/** The protocol whose answers are stored and referred to. */
export const STORED_PROTOCOL: Protocol = 'responses';
