/**
 * An upstream answer read as it arrives, for a request that asked for a stream: a handler given
 * to undici's `dispatch` that settles with the status and headers, and a body that hands each
 * chunk to its reader as undici parses it.
 *
 * `Dispatcher#request` gives the body as a Readable, whose every chunk goes through the stream's
 * buffer, a 'data' event and, for most steps, a process.nextTick, and a coding assistant's answer is
 * a few hundred such chunks (docs/performance.md, "Upstream answers without a Readable").
 */
import type { Dispatcher } from 'undici';
import { AbortableCall, type CallAbort } from './abort.js';
import type { UpstreamBody, UpstreamResponse } from './types.js';
import { AnswerDecoder, UnreadableEncoding, decodedHeaders, decodingFor } from './decode-answer.js';
import { headersOf } from './whole-answer.js';

/**
 * How much a body holds for a reader that is not reading (not there yet, or paused) before it
 * asks undici to stop reading the socket: a Readable's default high-water mark.
 */
const HIGH_WATER = 64 * 1024;

type Listener<T extends unknown[]> = ((...args: T) => void) | undefined;

/**
 * The body of a streamed answer: chunks, then 'end' or 'error', with the part of a Readable's
 * surface the gateway reads through (`UpstreamBody`). One listener per event: its readers (the
 * relays, readAll, readText) each add one of each, and a second is a bug, so it throws.
 *
 * What arrives before the reader is there (undici parses the first chunk in the same pass as the
 * headers, before the promise of the answer has resolved) waits, and is handed over in a microtask
 * once a 'data' listener is added: by then the reader has added its 'end' and 'error' listeners too.
 * Unlike a Readable destroyed by an error, the chunks that came before the error are handed over
 * first, so the client gets all the upstream sent before the gateway's error frame.
 */
export class StreamedBody implements UpstreamBody {
  private dataListener: Listener<[Buffer]>;
  private endListener: Listener<[]>;
  private errorListener: Listener<[Error]>;
  private readonly queue: Buffer[] = [];
  private head = 0;
  private queued = 0;
  /** Chunks flow to the reader (or are dropped when there is none): after on('data') or resume(). */
  private flowing = false;
  private paused = false;
  private destroyed = false;
  private delivering = false;
  private scheduled = false;
  /** undici has been told to stop reading (a push returned false); `resumeUpstream` restarts it. */
  private upstreamPaused = false;
  /** How the upstream ended, once it has: 'end', or the error. */
  private outcome: 'end' | Error | undefined;
  private outcomeDelivered = false;

  constructor(
    private readonly resumeUpstream: () => void,
    private readonly abortUpstream: (reason: Error) => void,
  ) {}

  get readableLength(): number {
    return this.queued;
  }

  on(event: 'data', listener: (chunk: Buffer) => void): this {
    if (event !== 'data') throw new Error(`StreamedBody: on('${String(event)}') is not supported; use once for 'end' and 'error'.`);
    if (this.dataListener) throw new Error("StreamedBody takes one 'data' listener.");
    this.dataListener = listener;
    this.flowing = true;
    if (this.head < this.queue.length || this.outcome !== undefined) this.schedule();
    return this;
  }

  once(event: 'end', listener: () => void): this;
  once(event: 'error', listener: (err: Error) => void): this;
  once(event: 'end' | 'error', listener: (() => void) | ((err: Error) => void)): this {
    if (event === 'end') {
      if (this.endListener) throw new Error("StreamedBody takes one 'end' listener.");
      this.endListener = listener as () => void;
    } else if (event === 'error') {
      if (this.errorListener) throw new Error("StreamedBody takes one 'error' listener.");
      this.errorListener = listener as (err: Error) => void;
    } else {
      throw new Error(`StreamedBody: once('${String(event)}') is not supported.`);
    }
    if (this.outcome !== undefined) this.schedule();
    return this;
  }

  pause(): this {
    this.paused = true;
    return this;
  }

  resume(): this {
    this.flowing = true;
    if (this.paused) {
      this.paused = false;
      this.deliver();
    } else {
      this.schedule();
    }
    return this;
  }

  /** Stops the upstream call; nothing more is handed over, no 'end' and no 'error'. */
  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.queue.length = 0;
    this.head = 0;
    this.queued = 0;
    if (this.outcome === undefined) this.abortUpstream(new Error('The upstream body was destroyed by its reader.'));
    return this;
  }

  /** The chunks one at a time, pausing the body while the loop has one it has not taken. */
  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    const waiting: Buffer[] = [];
    let ended = false;
    let failure: Error | undefined;
    let wake: (() => void) | undefined;
    const woken = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    this.on('data', (chunk) => {
      waiting.push(chunk);
      this.pause();
      woken();
    });
    this.once('end', () => {
      ended = true;
      woken();
    });
    this.once('error', (err) => {
      failure = err;
      woken();
    });
    return {
      next: async (): Promise<IteratorResult<Buffer>> => {
        while (waiting.length === 0 && !ended && failure === undefined) {
          const more = new Promise<void>((resolve) => (wake = resolve));
          this.resume();
          await more;
        }
        const chunk = waiting.shift();
        if (chunk) return { value: chunk, done: false };
        if (failure) throw failure;
        return { value: undefined, done: true };
      },
      return: async (): Promise<IteratorResult<Buffer>> => {
        if (!ended) this.destroy();
        return { value: undefined, done: true };
      },
    };
  }

  /** A chunk from undici; false asks it to stop reading until `resumeUpstream`. */
  push(chunk: Buffer): boolean {
    if (this.destroyed) return true;
    if (this.flowing && !this.paused && this.head === this.queue.length && !this.delivering) {
      this.dataListener?.(chunk);
      if (!this.paused) return true;
      this.upstreamPaused = true;
      return false;
    }
    this.queue.push(chunk);
    this.queued += chunk.length;
    if (this.flowing && !this.paused) this.schedule();
    if (this.queued < HIGH_WATER) return true;
    this.upstreamPaused = true;
    return false;
  }

  /** The upstream's end: undici's onComplete (with the error: its onError). */
  finish(outcome: 'end' | Error): void {
    if (this.outcome !== undefined || this.destroyed) return;
    this.outcome = outcome;
    this.deliver();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.deliver();
    });
  }

  /** Hands over what waits, as far as the reader lets it; then the outcome, once the chunks are out. */
  private deliver(): void {
    if (this.delivering || this.destroyed) return;
    this.delivering = true;
    try {
      const { queue } = this;
      while (this.head < queue.length && this.flowing && !this.paused && !this.destroyed) {
        const chunk = queue[this.head]!;
        queue[this.head++] = EMPTY;
        this.queued -= chunk.length;
        this.dataListener?.(chunk);
      }
      if (this.head === queue.length && this.head > 0) {
        queue.length = 0;
        this.head = 0;
      }
    } finally {
      this.delivering = false;
    }
    if (this.destroyed) return;
    const reading = this.flowing && !this.paused;
    const { outcome } = this;
    if (outcome === undefined) {
      if (reading && this.upstreamPaused && this.head === this.queue.length) {
        this.upstreamPaused = false;
        // May hand over the next chunks at once, through push.
        this.resumeUpstream();
      }
    } else if (outcome === 'end') {
      // As a Readable: 'end' once every chunk has been read, and only by a reader.
      if (reading && this.head === this.queue.length && this.endListener && !this.outcomeDelivered) {
        this.outcomeDelivered = true;
        this.endListener();
      }
    } else if (this.errorListener && !this.outcomeDelivered) {
      // A reader that is not reading now (paused, say) loses what waits, as with a Readable.
      this.outcomeDelivered = true;
      this.queue.length = 0;
      this.head = 0;
      this.queued = 0;
      this.errorListener(outcome);
    }
  }
}

const EMPTY = Buffer.alloc(0);

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
        {
          data: (chunk) => body.push(chunk),
          end: () => body.finish('end'),
          error: (err) => {
            body.finish(err);
            abort(err);
          },
        },
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
    this.end('end');
  }

  onError(err: Error): void {
    this.decoder?.destroy();
    this.end(err);
  }

  private end(outcome: 'end' | Error): void {
    if (this.done) return;
    this.done = true;
    this.release();
    if (this.body) this.body.finish(outcome);
    else this.settle(outcome === 'end' ? new Error('The upstream ended without an answer.') : outcome, undefined);
  }
}

function noop(): void {}
