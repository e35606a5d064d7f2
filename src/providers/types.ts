/**
 * A provider is transport: where a protocol's requests go and how they are
 * authenticated. It holds no payload mapping (that is `translate/`).
 */
import type { Readable } from 'node:stream';
import type { ProviderConfig } from '../config/types.js';
import type { Operation, Protocol } from '../protocols/types.js';
import type { GatewayError } from '../errors.js';
import type { AbortState, CallAbort } from './abort.js';
import type { CredentialPick, CredentialStanding } from './credentials/rotation.js';

export type { CredentialPick, CredentialStanding };

/**
 * How much of an error answer (non-2xx) is kept, by a transport and by the gateway reading one:
 * enough for any provider's error JSON. The rest is read and dropped.
 */
export const ERROR_BODY_LIMIT = 64 * 1024;

export type { Operation };

export interface UpstreamRequest {
  readonly protocol: Protocol;
  readonly operation: Operation;
  /** Headers to send, already filtered (no client credentials, no hop-by-hop). */
  readonly headers: Record<string, string>;
  /** The exact bytes to send. */
  readonly body: Buffer;
  /** The same body, parsed (read-only: `body` is what goes on the wire). */
  readonly json: Readonly<Record<string, unknown>>;
  /**
   * Whether the caller asked for a stream. When false a transport may read the answer whole
   * before it resolves, and give its body as a Buffer.
   */
  readonly stream?: boolean;
  /**
   * Most bytes of an answer the transport reads whole (`server.maxResponseBytes`; decoded bytes, for a
   * compressed one); past it the call fails. Default: the setting's default.
   */
  readonly maxResponseBytes?: number;
  /**
   * Counts bytes of an answer read whole against the gateway's `server.maxBufferedBytes`; throws
   * the GatewayError to fail the call with when that is spent. Absent: nothing counted.
   */
  holdAnswer?(bytes: number): void;
  /**
   * The model named upstream (the final body's `model`), for a provider that puts it in the URL.
   * Absent: such a provider reads `json.model`.
   */
  readonly model?: string;
  /** For a provider with several credentials: the one `pick` chose for this call. */
  readonly credential?: string | undefined;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /**
   * The same cancellation, cheaper: a transport that can listen to an EventEmitter uses this
   * instead of `signal`, which then need never be made (see abort.ts).
   */
  readonly abort?: CallAbort;
}

export interface UpstreamResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * The body as it arrives (made from `whole` on first use when the answer was read whole);
   * destroying it stops the call.
   */
  readonly body: Readable;
  /**
   * The body, when the transport read it whole before resolving (see `UpstreamRequest.stream`):
   * all of a 2xx answer, the first 64 KiB of an error answer.
   */
  readonly whole?: Buffer;
}

export interface Provider {
  readonly id: string;
  readonly config: ProviderConfig;
  /**
   * For a provider with several credentials: the one the next call goes with, the same for calls
   * of one conversation (`affinity`) while it can take them. Throws the GatewayError to answer
   * when none can. Absent: the provider has one credential.
   */
  pick?(affinity: string | undefined): CredentialPick;
  /** For a provider with several credentials: where each stands now (read by the metrics when scraped). */
  standings?(): { readonly name: string; readonly standing: CredentialStanding }[];
  /** Throws `GatewayError` for transport failures (unreachable 502, header timeout 504). */
  send(request: UpstreamRequest): Promise<UpstreamResponse>;
  /**
   * The provider's HTTP error answer (status >= 400, its body text with the credential already cut
   * out) as the error the caller sees. Absent: the provider has no such answers (echo).
   */
  toError?(status: number, headers: Readonly<Record<string, string | string[] | undefined>>, bodyText: string): GatewayError;
  /**
   * A failure of the call before or while its answer is read (the body's 'error', a size limit)
   * as the error the caller sees. Absent: the error as it is.
   */
  transportError?(err: unknown, signal?: AbortState): unknown;
  close(): Promise<void>;
}
