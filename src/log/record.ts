/** Everything one log line (and one log-file entry) says about a request, filled in as it is handled. */
import type { Exchange } from './exchange.js';
import type { Protocol, Usage } from '../protocols/types.js';

export interface RequestRecord {
  readonly id: string;
  /** Epoch ms, for the timestamp. */
  readonly startedAt: number;
  /** performance.now() at arrival, for durations. */
  readonly start: number;
  readonly method: string;
  readonly path: string;
  protocol?: Protocol;
  /** The protocol spoken upstream (differs from `protocol` when translated). */
  upstreamProtocol?: Protocol;
  userAgent?: string;
  keyGroup?: string;
  /** Non-secret key id (digest prefix) and optional label. */
  keyId?: string;
  keyName?: string;
  model?: string;
  provider?: string;
  upstreamModel?: string;
  stream?: boolean;
  status?: number;
  durationMs?: number;
  /** Time to the first byte sent to the client, for streams. */
  ttfbMs?: number;
  usage?: Usage;
  /** The fallback model that served the request, when not the one asked for. */
  servedBy?: string;
  /** Upstream attempts that failed before the answer (retries, fallbacks), in order. */
  tries?: Try[];
  /** What translation dropped or approximated. */
  warnings?: readonly string[];
  /** Why the request failed, safe to show. */
  error?: string;
  /** The client went away before the response was complete. */
  aborted?: boolean;
  /** The whole exchange, captured when someone will look at it (--verbose, --log-file, the inspector). */
  exchange?: Exchange;
}

/** A failed upstream attempt, for the log line's route (`gpt-a 529×3 → claude-b`). */
export interface Try {
  readonly model: string;
  readonly provider: string;
  /** The provider's HTTP status, when it answered. */
  status?: number;
  /** The failure's kind when it did not answer (`upstream_unavailable`, `timeout`). */
  error?: string;
}
