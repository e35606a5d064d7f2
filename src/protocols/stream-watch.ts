/**
 * A watcher follows a stream in its own protocol without changing it: it picks
 * up usage for the log, notices the protocol's proper end, and knows how to end
 * the stream with an in-band error when the upstream dies half way.
 * @see docs/protocols.md, "How a stream ends"
 */
import type { GatewayError } from '../errors.js';
import type { SseEvent } from '../sse/parse.js';
import type { SkipRule } from '../sse/skip.js';
import type { Usage } from './types.js';

/**
 * Made for each stream, so the watchers are object literals with data properties only: with getters (over the
 * factory's locals) V8 builds each one through its runtime, in dictionary mode, before a stream's first byte.
 */
export interface StreamWatch {
  onEvent(event: SseEvent): void;
  readonly usage: Usage;
  /** The stream reached its protocol's proper end, or carried its own error. */
  readonly finished: boolean;
  /** The frames that end this stream with an error. */
  errorFrames(err: GatewayError): string;
  /** Which chunks a relay need not decode for this watcher (see sse/skip.ts); every chunk without it. */
  readonly skip?: SkipRule;
}

