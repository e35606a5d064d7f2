/**
 * Brings a 2xx upstream answer back to the client, by route and shape: a stream goes through
 * the one pump (pump.ts) with the route's transform, a whole answer through whole.ts.
 * Failures are handled by the caller, which may still retry them while nothing was sent.
 */
import type { UpstreamResponse } from '../../providers/types.js';
import { attemptAnswered } from '../events.js';
import { contentTypeOf, type RelayContext } from './context.js';
import { passthroughStream } from './passthrough.js';
import { pump } from './pump.js';
import { translatedStream } from './translated.js';
import { passWhole, translateWhole } from './whole.js';

/** Not async itself: each way hands back its own promise, without an extra turn through the queue. */
export function relay(ctx: RelayContext, upstream: UpstreamResponse): Promise<void> {
  attemptAnswered(ctx.record, upstream);
  const isStream = contentTypeOf(upstream.headers).includes('text/event-stream');
  const t = ctx.translation;
  if (t) {
    if (t.stream && isStream) return pump(ctx, upstream, translatedStream(ctx, upstream, t));
    return translateWhole(ctx, upstream, t);
  }
  if (isStream) return pump(ctx, upstream, passthroughStream(ctx, upstream));
  return passWhole(ctx, upstream);
}
