/**
 * What a relay is handed, and the names it gives to why a stream stopped. Both ways of
 * relaying (passthrough and translated, whole or streamed) read this one shape.
 */
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../../errors.js';
import type { RequestRecord } from '../../log/record.js';
import type { Protocol } from '../../protocols/types.js';
import type { AbortState } from '../../providers/abort.js';
import type { Keeping } from '../../responses-store/keep.js';
import type { Provider } from '../../providers/types.js';
import type { TranslateContext } from '../../translate/ir.js';
import type { Translator } from '../../translate/translator.js';

export interface Translation {
  readonly translator: Translator;
  readonly ctx: TranslateContext;
  /** The caller's request, which some results echo (Responses) or consult (Chat `include_usage`). */
  readonly callerBody: Record<string, unknown>;
  /** Whether the caller asked for a stream. */
  readonly stream: boolean;
  /** Where the answer is stored once it has ended, for later references (Responses callers); undefined: not stored. */
  readonly keep: Keeping | undefined;
}

export interface RelayContext {
  readonly res: ServerResponse;
  readonly protocol: Protocol;
  readonly provider: Provider;
  readonly record: RequestRecord;
  /** The call's cancellation (a CallAbort in the gateway): only ever checked here. */
  readonly signal: AbortState;
  readonly translation: Translation | undefined;
  /** `server.maxResponseBytes`: the most of one answer (or of one stream event) held. */
  readonly maxResponseBytes: number;
}

/**
 * Why a stream broke off, as the client should read it; undefined when the client
 * left (nobody to tell). The total-time cap aborts with its own GatewayError.
 */
export function streamFailure(cause: Error, ctx: RelayContext): GatewayError | undefined {
  if (ctx.res.destroyed) return undefined;
  const reason: unknown = ctx.signal.reason;
  if (ctx.signal.aborted) return reason instanceof GatewayError ? reason : undefined;
  const mapped = ctx.provider.transportError ? ctx.provider.transportError(cause) : cause;
  const detail = mapped instanceof GatewayError ? `: ${mapped.message}` : '.';
  const kind = mapped instanceof GatewayError && mapped.kind === 'timeout' ? 'timeout' : 'upstream_error';
  return new GatewayError(kind, `The stream from provider '${ctx.provider.id}' broke off${detail}`);
}

/** A stream event past `server.maxResponseBytes`: the stream stops there. */
export function eventTooLarge(ctx: RelayContext): GatewayError {
  return new GatewayError(
    'upstream_error',
    `Provider '${ctx.provider.id}' sent a stream event larger than the gateway's limit of ${ctx.maxResponseBytes} bytes (server.maxResponseBytes).`,
  );
}

/** The content type an upstream answered with ('' when none), as passBackHeaders passes it on. */
export function contentTypeOf(headers: Readonly<Record<string, string | string[] | undefined>>): string {
  const value = headers['content-type'];
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join(', ') : value;
}
