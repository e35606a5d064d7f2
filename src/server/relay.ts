/**
 * Brings an upstream answer back to the client. Passthrough: bytes go out as
 * they arrive (streams with back-pressure, no re-encoding), while a watcher
 * reads usage for the log. An upstream that dies mid-stream, or ends without
 * its protocol's proper end, gets the protocol's own error frame appended:
 * never a silent truncation. A stream goes out in whole events only (see
 * sse/whole-events.ts), so that frame never lands in the middle of one.
 */
import { GatewayError } from '../errors.js';
import { protocolSpecs } from '../protocols/registry.js';
import { lastUsageObject, parseJson } from '../protocols/json.js';
import type { Protocol } from '../protocols/types.js';
import type { StreamWatch } from '../protocols/stream-watch.js';
import { passBackHeaders } from '../providers/response-headers.js';
import type { UpstreamResponse } from '../providers/types.js';
import { createSseDecoder, type SseDecoder } from '../sse/parse.js';
import { skippingDecoder } from '../sse/skip.js';
import { wholeEvents } from '../sse/whole-events.js';
import { relayTranslated } from './relay-translated.js';
import { captureUpstream, eventTooLarge, streamFailure, type RelayContext } from './relay-context.js';
import { STREAM_HEADERS, captureResponse, writeOrPause } from './respond.js';
import { capture, lastAttempt, type UpstreamAttempt } from '../log/exchange.js';
import { readAll } from './upstream-body.js';


/**
 * Relays a 2xx answer (failures are handled by forward.ts, which may still retry them). Not
 * async itself: each way hands back its own promise, without an extra turn through the queue.
 */
export function relay(upstream: UpstreamResponse, ctx: RelayContext): Promise<void> {
  const attempt = lastAttempt(ctx.record.exchange);
  if (attempt) {
    attempt.status = upstream.status;
    attempt.responseHeaders = upstream.headers;
  }
  if (ctx.translation) return relayTranslated(upstream, ctx, ctx.translation);
  const headers = passBackHeaders(upstream.headers);
  const contentType = headers['content-type'] ?? '';
  if (contentType.includes('text/event-stream')) return pipeStream(upstream, headers, ctx);
  return relayWhole(upstream, headers, contentType, ctx, attempt);
}

/**
 * A whole answer: read whole already by the transport (most), or read here. The first is sent at
 * once rather than through readAll, whose promise would cost the small request a turn of the queue.
 */
function relayWhole(
  upstream: UpstreamResponse,
  headers: Record<string, string | number>,
  contentType: string,
  ctx: RelayContext,
  attempt: UpstreamAttempt | undefined,
): Promise<void> {
  if (upstream.whole) {
    sendWhole(upstream, upstream.whole, headers, contentType, ctx, attempt);
    return DONE;
  }
  return readAll(upstream, ctx.provider.config, ctx.signal, ctx.maxResponseBytes).then((body) => sendWhole(upstream, body, headers, contentType, ctx, attempt));
}

const DONE = Promise.resolve();

function sendWhole(
  upstream: UpstreamResponse,
  body: Buffer,
  headers: Record<string, string | number>,
  contentType: string,
  ctx: RelayContext,
  attempt: UpstreamAttempt | undefined,
): void {
  // passBackHeaders made this object for this answer alone.
  headers['content-length'] = body.length;
  if (attempt) {
    captureUpstream(ctx, attempt, body);
    captureResponse(ctx.record, upstream.status, headers);
    ctx.record.exchange!.responseIsUpstream = true;
  }
  ctx.res.writeHead(upstream.status, headers);
  ctx.res.end(body);
  // The answer is on its way; usage for the log comes after: the `usage` object alone is read,
  // and the whole body only when that fails.
  if (!contentType.includes('json')) return;
  const usage = lastUsageObject(body);
  ctx.record.usage = protocolSpecs[ctx.protocol].usage(usage ? { usage } : parseJson(body.toString('utf8')));
}

/** What follows a passthrough stream for the log: its protocol's watcher, and a decoder that skips what it ignores. */
interface Follower {
  readonly watch: StreamWatch;
  readonly decoder: SseDecoder;
}

function newFollower(protocol: Protocol): Follower {
  const watch = protocolSpecs[protocol].watchStream();
  return { watch, decoder: skippingDecoder(createSseDecoder(), watch.skip) };
}

function pipeStream(upstream: UpstreamResponse, headers: Record<string, string | number>, ctx: RelayContext): Promise<void> {
  const { res, record } = ctx;
  const body = upstream.body;
  // The watcher and its decoder are made once the first chunk is out, so making them does not delay the first byte.
  let follower: Follower | undefined;
  const follow = (): Follower => (follower ??= newFollower(ctx.protocol));
  const attempt = lastAttempt(record.exchange);

  const sent = Object.assign(headers, STREAM_HEADERS);
  if (attempt) {
    captureResponse(record, upstream.status, sent);
    record.exchange!.responseIsUpstream = true;
  }
  res.writeHead(upstream.status, sent);
  // The client should see the upstream's headers as soon as they arrive, even before its first event.
  // When that event came with them (as it usually does), the headers go out with it, in one write:
  // a write of their own would delay that first event.
  if (body.readableLength === 0) res.flushHeaders();

  const events = wholeEvents(ctx.maxResponseBytes);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (tail?: string) => {
      if (settled) return;
      settled = true;
      record.usage = follow().watch.usage;
      if (tail && attempt) {
        // The error frame is the gateway's, not the upstream's: the client's answer is no longer the upstream's alone.
        record.exchange!.responseIsUpstream = false;
        for (const c of attempt.response.chunks) capture(record.exchange!, record.exchange!.response, c.t, c.data);
        capture(record.exchange!, record.exchange!.response, performance.now() - record.start, tail);
      }
      if (!res.destroyed) res.end(tail);
      resolve();
    };
    // What was sent ends with a whole event; the one held unfinished is dropped, and the error follows.
    const fail = (err: GatewayError) => {
      record.error = err.message;
      if (attempt) attempt.error ??= err.message;
      finish(follow().watch.errorFrames(err));
    };

    body.on('data', (chunk: Buffer) => {
      if (record.ttfbMs === undefined) record.ttfbMs = performance.now() - record.start;
      const whole = events.push(chunk);
      if (whole === undefined) {
        if (attempt) captureUpstream(ctx, attempt, chunk);
        body.destroy();
        return fail(eventTooLarge(ctx));
      }
      if (whole.length > 0) {
        // Out first, read for usage after: the client does not wait for the gateway's bookkeeping.
        writeOrPause(res, whole, body);
        const { decoder, watch } = follow();
        for (const event of decoder.push(whole)) watch.onEvent(event);
      }
      if (attempt) captureUpstream(ctx, attempt, chunk);
    });
    body.once('end', () => {
      const { decoder, watch } = follow();
      // An event left without its blank line: the upstream's last, or one it broke off in.
      const rest = events.rest();
      if (rest.length > 0) for (const event of decoder.push(rest)) watch.onEvent(event);
      for (const event of decoder.end()) watch.onEvent(event);
      if (watch.finished) {
        if (rest.length > 0 && !res.destroyed) res.write(rest);
        return finish();
      }
      fail(new GatewayError('upstream_error', `Provider '${ctx.provider.id}' ended the stream before it was complete.`));
    });
    body.once('error', (cause: Error) => {
      const err = streamFailure(cause, ctx);
      if (!err) return finish();
      fail(err);
    });
    res.on('close', () => {
      if (!settled) {
        body.destroy();
        finish();
      }
    });
  });
}
