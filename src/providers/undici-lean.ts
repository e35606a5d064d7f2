/**
 * The part of undici the gateway uses at serve time (`Pool` and its `dispatch`, `errors`), loaded from
 * undici's own files instead of its index. The index also loads the Agent, proxy agents, mocks, caches,
 * interceptors, fetch, WebSocket...: resident memory that an idle gateway never uses
 * (docs/performance.md, "Loading only the undici the gateway uses").
 *
 * This reaches into undici's internal layout (`lib/...`), which is not a public API: `undici-lean.test.ts`
 * fails loudly when an undici release moves or changes what is used here. The objects are the very ones
 * undici's index exports (same files, same require cache), so `instanceof` with `errors` from 'undici' holds.
 */
import type * as Undici from 'undici';
import api from 'undici/lib/api/index.js';
import undiciErrors from 'undici/lib/core/errors.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import UndiciPool from 'undici/lib/dispatcher/pool.js';

// What undici's index.js does: the request/stream/pipeline/... methods live on every dispatcher's prototype.
// The gateway calls only `dispatch`, but a Pool from here stays the Pool its type says it is (the
// methods cost no memory worth saving).
Object.assign(Dispatcher.prototype, api);

export const Pool: typeof Undici.Pool = UndiciPool;
export const errors: typeof Undici.errors = undiciErrors;
