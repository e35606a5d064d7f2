/**
 * The one loop that brings an upstream stream to the client, whatever the route does to its
 * events (passthrough.ts sends them as they came, translated.ts re-encodes them): the head,
 * whole events only (see sse/whole-events.ts, so a closing error frame never lands inside
 * one), writes with back-pressure, the size cap, the upstream's end, error and the client's
 * leaving, and the error frame that ends a stream that broke: never a silent truncation.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { GatewayError } from '../../errors.js';
import type { Usage } from '../../protocols/types.js';
import type { UpstreamResponse } from '../../providers/types.js';
import { STREAM_HEADERS, writeOrPause } from '../../server/respond.js';
import { wholeEvents } from '../../sse/whole-events.js';
import { answerChunk, answerFailed, answerHead, answerIsUpstream, answerTail, upstreamChunk, usageRead } from '../events.js';
import { eventTooLarge, streamFailure, type RelayContext } from './context.js';

/**
 * What a route does to a stream's events. Made once per stream, and called for each chunk without
 * a closure or an array of its own: this is the gateway's busiest loop.
 */
export interface StreamTransform {
  readonly status: number;
  /** The head the client gets (STREAM_HEADERS are added to it). */
  readonly headers: OutgoingHttpHeaders;
  /** The client gets the upstream's bytes unchanged (passthrough): the exchange holds them once. */
  readonly unchanged: boolean;
  /**
   * What the client gets for these whole events; empty when nothing yet. When they cannot be
   * turned into it, what comes back ends the client's stream (with its error frame) and
   * `broken` says why.
   */
  push(events: Buffer): Buffer | string;
  /** Reads what went out, once it is out: the client does not wait for the gateway's bookkeeping. */
  follow(events: Buffer): void;
  /**
   * The upstream ended; `rest` is the event it left without its blank line. What goes out last:
   * when the stream was not complete, `broken` says why and this ends with the error frame.
   */
  end(rest: Buffer): Buffer | string;
  /** The frames that end the client's stream with `err`. */
  fail(err: GatewayError): string;
  /** Why the stream could not be relayed to its end, once it could not. */
  readonly broken: string | undefined;
  /** What the stream used, as far as it went. */
  usage(): Usage | undefined;
}

/** Relays `upstream`'s stream through `t` until it ends, breaks or the client leaves; never rejects. */
export function pump(ctx: RelayContext, upstream: UpstreamResponse, t: StreamTransform): Promise<void> {
  const { res, record } = ctx;
  const body = upstream.body;
  const headers = Object.assign(t.headers, STREAM_HEADERS);
  answerHead(record, t.status, headers);
  if (t.unchanged) answerIsUpstream(record);
  res.writeHead(t.status, headers);
  // The client should see the head as soon as the upstream's arrives, even before its first event. When
  // that event came with it (as it usually does), the head goes out with the first write, in one packet:
  // a write of its own would delay that event. If the first chunk brings nothing to write, it goes alone.
  let headOut = body.readableLength === 0;
  if (headOut) res.flushHeaders();

  const events = wholeEvents(ctx.maxResponseBytes);
  return new Promise((resolve) => {
    let settled = false;
    /** `tail`: `last` is the gateway's own frames (an error), not the route's output. */
    const finish = (last: Buffer | string, tail: boolean) => {
      if (settled) return;
      settled = true;
      usageRead(record, t.usage());
      if (last.length > 0) {
        if (tail) answerTail(record, last);
        else answerChunk(record, last);
      }
      if (!res.destroyed) {
        if (last.length > 0) res.end(last);
        else res.end();
      }
      resolve();
    };
    // What was sent ends with a whole event; the one held unfinished is dropped, and the error follows.
    const fail = (err: GatewayError) => {
      answerFailed(record, err.message);
      finish(t.fail(err), true);
    };

    body.on('data', (chunk: Buffer) => {
      // Stamped on arrival, before any output it leads to: the log never shows an answer before what it came from.
      upstreamChunk(record, chunk);
      const whole = events.push(chunk);
      if (whole === undefined) {
        body.destroy();
        return fail(eventTooLarge(ctx));
      }
      let wrote = false;
      if (whole.length > 0) {
        const out = t.push(whole);
        if (t.broken !== undefined) {
          answerFailed(record, t.broken);
          body.destroy();
          return finish(out, true);
        }
        if (out.length > 0) {
          answerChunk(record, out);
          writeOrPause(res, out, body);
          wrote = true;
        }
        t.follow(whole);
      }
      if (!headOut) {
        headOut = true;
        if (!wrote) res.flushHeaders();
      }
    });
    body.once('end', () => {
      const last = t.end(events.rest());
      if (t.broken === undefined) return finish(last, false);
      answerFailed(record, t.broken);
      finish(last, true);
    });
    body.once('error', (cause: Error) => {
      const err = streamFailure(cause, ctx);
      if (!err) return finish('', false);
      fail(err);
    });
    res.on('close', () => {
      if (!settled) {
        body.destroy();
        finish('', false);
      }
    });
  });
}
