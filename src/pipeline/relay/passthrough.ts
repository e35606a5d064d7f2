/**
 * Passthrough streams: the upstream's events go out as they came (no re-encoding), and its
 * protocol's watcher follows them for the log: usage, and whether the stream reached its
 * proper end. One that did not gets the protocol's own error frame.
 */
import { GatewayError } from '../../errors.js';
import { protocols } from '../../protocols/registry.js';
import type { StreamWatch } from '../../protocols/stream-watch.js';
import type { Usage } from '../../protocols/types.js';
import { passBackHeaders } from '../../providers/response-headers.js';
import { renamesAnswer, StreamModelRename } from './answer-model.js';
import { droppedHeader } from './dropped.js';
import type { UpstreamResponse } from '../../providers/types.js';
import { createSseDecoder, type SseDecoder } from '../../sse/parse.js';
import { skippingDecoder } from '../../sse/skip.js';
import type { RelayContext } from './context.js';
import type { StreamTransform } from './pump.js';

/** What follows a passthrough stream for the log: its protocol's watcher, and a decoder that skips what it ignores. */
interface Follower {
  readonly watch: StreamWatch;
  readonly decoder: SseDecoder;
}

class Passthrough implements StreamTransform {
  readonly unchanged: boolean;
  broken: string | undefined = undefined;
  // Made once the first events are out, so making them does not delay the first byte.
  private follower: Follower | undefined = undefined;
  /** The answer's model renamed to the caller's, when the request went upstream under another name. */
  private readonly rename: StreamModelRename | undefined;

  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    private readonly ctx: RelayContext,
  ) {
    const { model, upstreamModel } = ctx.record;
    this.rename = protocols[ctx.protocol].renamesAnswerModel && renamesAnswer(model, upstreamModel) ? new StreamModelRename(model) : undefined;
    this.unchanged = this.rename === undefined;
  }

  push(events: Buffer): Buffer {
    return this.rename === undefined ? events : this.rename.push(events);
  }

  follow(events: Buffer): void {
    const { decoder, watch } = this.followed();
    for (const event of decoder.push(events)) watch.onEvent(event);
  }

  end(rest: Buffer): Buffer | string {
    const { decoder, watch } = this.followed();
    // An event left without its blank line: the upstream's last, or one it broke off in.
    if (rest.length > 0) for (const event of decoder.push(rest)) watch.onEvent(event);
    for (const event of decoder.end()) watch.onEvent(event);
    if (watch.finished) return rest;
    const err = new GatewayError('upstream_error', `Provider '${this.ctx.provider.id}' ended the stream before it was complete.`);
    this.broken = err.message;
    return watch.errorFrames(err);
  }

  fail(err: GatewayError): string {
    return this.followed().watch.errorFrames(err);
  }

  usage(): Usage {
    return this.followed().watch.usage;
  }

  private followed(): Follower {
    if (this.follower) return this.follower;
    const watch = protocols[this.ctx.protocol].watchStream();
    this.follower = { watch, decoder: skippingDecoder(createSseDecoder(), watch.skip) };
    return this.follower;
  }
}

export function passthroughStream(ctx: RelayContext, upstream: UpstreamResponse): StreamTransform {
  const headers = passBackHeaders(upstream.headers);
  // A passthrough leaves something out only for an upstream that refuses it (a provider's envelope).
  const dropped = droppedHeader(ctx.record.warnings);
  if (dropped !== undefined) headers['x-model-gateway-dropped'] = dropped;
  return new Passthrough(upstream.status, headers, ctx);
}
