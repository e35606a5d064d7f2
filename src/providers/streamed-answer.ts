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

/**
 * The body of a streamed answer. A push past the high-water mark makes the handler tell undici to
 * stop reading the socket, until the reader wants more (`_read`); destroyed by its reader before
 * the end, it stops the upstream call.
 */
class StreamedBody extends Readable {
  constructor(
    private readonly resumeUpstream: () => void,
    private readonly abortUpstream: (reason: Error) => void,
  ) {
    super();
  }

  override _read(): void {
    this.resumeUpstream();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    if (!this.readableEnded) this.abortUpstream(err ?? new Error('The upstream body was destroyed by its reader.'));
    callback(err);
  }
}

type Settle = (err: Error | undefined, answer: UpstreamResponse | undefined) => void;

/**
 * undici's handler interface for a streamed answer. `settle` is called once: with the answer when
 * its headers arrive, or with the error when the call fails before. After the headers, failures
 * go to the body as its 'error'.
 */
export class StreamAnswerHandler extends AbortableCall implements Dispatcher.DispatchHandler {
  private body: StreamedBody | undefined;
  private done = false;
  private decoder: AnswerDecoder | undefined;

  constructor(
    signal: CallAbort,
    private readonly settle: Settle,
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
      const body = new StreamedBody(
        () => decoder.resume(),
        (reason) => {
          decoder.destroy();
          abort(reason);
        },
      );
      const decoder = new AnswerDecoder(
        decoding,
        { data: (chunk) => body.push(chunk), end: () => body.push(null), error: (err) => body.destroy(err) },
        resume,
      );
      this.decoder = decoder;
      this.body = body;
      this.settle(undefined, { status: statusCode, headers, body });
      return true;
    }
    this.body = new StreamedBody(resume, abort);
    this.settle(undefined, { status: statusCode, headers, body: this.body });
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.decoder) return this.decoder.write(chunk);
    return this.body ? this.body.push(chunk) : true;
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
    else if (!err) body.push(null);
    // As undici's own request body: destroyed a microtask later, so that a reader handed the answer just
    // before is listening by then (a Readable's 'error' with no listener would throw).
    else queueMicrotask(() => body.destroy(err));
  }
}

function noop(): void {}
