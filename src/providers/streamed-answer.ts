/**
 * An upstream answer read as it arrives, for a request that asked for a stream: a handler given
 * to undici's `dispatch` that settles with the status and headers, and a Readable body fed with
 * each chunk as undici parses it (or as the decoder hands it on, for a compressed answer).
 */
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { AbortableCall, type CallAbort } from './abort.js';
import type { UpstreamResponse } from './types.js';
import { AnswerDecoder, UnreadableEncoding, decodedHeaders, decodingFor } from './decode-answer.js';
import { headersOf } from './whole-answer.js';

/** The upstream call behind a streamed body: resumed when its reader wants more, aborted when it leaves. */
export interface UpstreamControl {
  resume(): void;
  abort(reason: Error): void;
}

/**
 * The body a streamed answer is read into, fed each chunk as it arrives: the upstream's bytes as
 * they came (`StreamedBody`), or what a kind reads them as, for an upstream that frames its stream
 * its own way (`HttpHooks.streamBody`), with no stream in between. Destroyed by its reader before
 * the end, it stops the upstream call.
 */
export interface FedBody extends Readable {
  /** The next chunk of the upstream's body; false asks the upstream to wait until the body's `_read`. */
  feed(chunk: Buffer): boolean;
  /** The upstream's body is complete. */
  finish(): void;
}

/** A kind's own body for an answer with this status and these headers; undefined for the bytes as they came. */
export type BodyFor = (status: number, headers: Record<string, string | string[] | undefined>, upstream: UpstreamControl) => FedBody | undefined;

/**
 * What a kind reads a stream's bytes as, for an upstream that frames its stream its own way: fed
 * each chunk with the body it pushes what it makes into (`framedBody`).
 */
export interface StreamFraming {
  /** The next chunk of the upstream's body; false asks the upstream to wait until the body's `_read`. */
  feed(chunk: Buffer, body: FramedBody): boolean;
  /** The upstream's body is complete. */
  finish(body: FramedBody): void;
}

/** A body its kind's framing feeds, and that framing. */
export interface FramedBody extends FedBody {
  readonly framing: StreamFraming | undefined;
}

/**
 * The body of a streamed answer: the upstream's bytes as they came, or, with its kind's framing, what
 * the framing makes of them. One class for both, so that the stream machinery every answer goes
 * through (Node's own, the relay's) meets one shape of body whichever provider answers, rather
 * than being compiled for one and compiled again when the other comes. A push past the high-water
 * mark makes the handler tell undici to stop reading the socket, until the reader wants more
 * (`_read`); its reader leaving before the end aborts the upstream call.
 */
class StreamedBody extends Readable implements FramedBody {
  constructor(
    private readonly upstream: UpstreamControl,
    readonly framing: StreamFraming | undefined,
  ) {
    super();
  }

  feed(chunk: Buffer): boolean {
    return this.framing === undefined ? this.push(chunk) : this.framing.feed(chunk, this);
  }

  finish(): void {
    if (this.framing === undefined) this.push(null);
    else this.framing.finish(this);
  }

  override _read(): void {
    this.upstream.resume();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    if (!this.readableEnded) this.upstream.abort(err ?? new Error('The upstream body was destroyed by its reader.'));
    callback(err);
  }
}

/** The body of a streamed answer read through `framing` (for a kind's `HttpHooks.streamBody`). */
export const framedBody = (upstream: UpstreamControl, framing: StreamFraming): FramedBody => new StreamedBody(upstream, framing);

type Settle = (err: Error | undefined, answer: UpstreamResponse | undefined) => void;

/**
 * undici's handler interface for a streamed answer. `settle` is called once: with the answer when
 * its headers arrive, or with the error when the call fails before. After the headers, failures
 * go to the body as its 'error'.
 */
export class StreamAnswerHandler extends AbortableCall implements Dispatcher.DispatchHandler {
  private body: FedBody | undefined;
  private done = false;
  private decoder: AnswerDecoder | undefined;

  constructor(
    signal: CallAbort,
    private readonly settle: Settle,
    private readonly bodyFor?: BodyFor,
  ) {
    super(signal);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // 1xx (100 Continue, 103 Early Hints) come before the answer: not it.
    if (statusCode < 200 || this.body) return true;
    const abort = this.abortCall ?? noop;
    let headers = headersOf(rawHeaders);
    const encoding = headers['content-encoding'];
    const decoding = encoding === undefined ? undefined : decodingFor(encoding);
    if (decoding instanceof UnreadableEncoding) {
      // An error answer in an unknown encoding still has its status; its body is only text for the log.
      if (statusCode < 300) {
        this.done = true;
        this.release();
        this.settle(decoding, undefined);
        abort(decoding);
        return false;
      }
    } else if (decoding) {
      headers = decodedHeaders(headers);
      const upstream: UpstreamControl = {
        resume: () => decoder.resume(),
        abort: (reason) => {
          decoder.destroy();
          abort(reason);
        },
      };
      const body = this.bodyFor?.(statusCode, headers, upstream) ?? new StreamedBody(upstream, undefined);
      const decoder = new AnswerDecoder(decoding, { data: (chunk) => body.feed(chunk), end: () => body.finish(), error: (err) => body.destroy(err) }, resume);
      this.decoder = decoder;
      this.body = body;
      this.settle(undefined, { status: statusCode, headers, body });
      return true;
    }
    const upstream: UpstreamControl = { resume, abort };
    this.body = this.bodyFor?.(statusCode, headers, upstream) ?? new StreamedBody(upstream, undefined);
    this.settle(undefined, { status: statusCode, headers, body: this.body });
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.decoder) return this.decoder.write(chunk);
    return this.body ? this.body.feed(chunk) : true;
  }

  onComplete(): void {
    if (this.decoder && !this.done) {
      // The body ends once the decoder has handed over the last of it.
      this.done = true;
      this.release();
      this.decoder.end();
      return;
    }
    this.end();
  }

  onError(err: Error): void {
    this.decoder?.destroy();
    this.end(err);
  }

  private end(err?: Error): void {
    if (this.done) return;
    this.done = true;
    this.release();
    const { body } = this;
    if (!body) this.settle(err ?? new Error('The upstream ended without an answer.'), undefined);
    else if (!err) body.finish();
    // As undici's own request body: destroyed a microtask later, so that a reader handed the answer just
    // before is listening by then (a Readable's 'error' with no listener would throw).
    else queueMicrotask(() => body.destroy(err));
  }
}

function noop(): void {}
