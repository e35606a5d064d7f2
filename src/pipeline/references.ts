/**
 * Responses history by reference on translated routes: the request's references to stored answers
 * resolved before it is translated (once per request, whichever route needs it first), and where
 * its own answer is stored. Passthrough routes never come here: their provider keeps its own.
 * @see src/responses-store/
 */
import type { Json } from '../protocols/json.js';
import type { Keeping } from '../responses-store/keep.js';
import { hasReferences, inputItems, resolveReferences } from '../responses-store/resolve.js';
import { STORED_PROTOCOL } from '../responses-store/store.js';
import type { ModelRequest } from './model-request.js';

const resolved = new WeakMap<ModelRequest, Promise<ModelRequest>>();

/** The request as a translated route sends it: its references resolved. Rejects with a 400 naming an id not held. */
export function withReferences(r: ModelRequest): ModelRequest | Promise<ModelRequest> {
  // Any operation that reaches an upstream: a compaction may name its conversation by `previous_response_id` too.
  if (r.protocol !== STORED_PROTOCOL || !hasReferences(r.body.get())) return r;
  let done = resolved.get(r);
  if (done === undefined) {
    const lookup = { store: r.ctx.deps.responses, group: r.group.name, now: Date.now() };
    done = resolveReferences(r.body.get(), lookup).then((body) => ({ ...r, body: { get: () => body, release: () => {} } }));
    resolved.set(r, done);
  }
  return done;
}

/** Where a translated answer to `r` is stored, when it is: a Responses call that did not say `store: false`, with the store on. */
export function keeping(r: ModelRequest, callerBody: Json): Keeping | undefined {
  const { responsesStoreBytes: maxBytes, responsesStoreTtlMs: ttlMs } = r.state.config.server;
  if (r.protocol !== STORED_PROTOCOL || r.operation !== 'create' || callerBody.store === false || maxBytes === 0) return undefined;
  return { store: r.ctx.deps.responses, group: r.group.name, settings: { maxBytes, ttlMs }, input: inputItems(callerBody.input) };
}
