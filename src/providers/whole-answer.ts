/**
 * An upstream answer read whole, for a request that asked for no stream: a handler given to
 * undici's `dispatch` that gathers the body's chunks and settles once with all of it.
 *
 * `Dispatcher#request` hands back the body as a Readable stream, and reading a stream costs
 * far more than the few chunks of a JSON answer it carries: the stream's own state, a
 * process.nextTick for most of its steps, listeners added and removed, an AsyncResource per
 * request (docs/performance.md, "Whole upstream answers without a Readable"). Streamed answers have
 * a handler of their own (streamed-answer.ts).
 */
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { AbortableCall, type CallAbort } from './abort.js';
import { AnswerDecoder, AnswerTooLarge, UnreadableEncoding, decodedHeaders, decodingFor } from './decode-answer.js';
import { ERROR_BODY_LIMIT, type UpstreamResponse } from './types.js';

export { ERROR_BODY_LIMIT };

/** An answer read whole. Its `body` stream, for readers that want one, is made on first use. */
export class WholeAnswer implements UpstreamResponse {
  #stream: Readable | undefined;

  constructor(
    readonly status: number,
    readonly headers: Record<string, string | string[] | undefined>,
    readonly whole: Buffer,
  ) {}

  get body(): Readable {
    if (!this.#stream) {
      this.#stream = new Readable({ read() {} });
      if (this.whole.length > 0) this.#stream.push(this.whole);
      this.#stream.push(null);
    }
    return this.#stream;
  }
}

type Settle = (err: Error | undefined, answer: WholeAnswer | undefined) => void;

/**
 * undici's handler interface (onConnect, onHeaders, onData, onComplete, onError), as its own
 * `request` implements it. `settle` is called exactly once. A 2xx answer past `limit` bytes
 * (decoded bytes, for a compressed one), or one the request's `holdAnswer` finds the gateway cannot
 * hold with all it holds already, fails the call at once, and the rest is not read.
 */
export class WholeAnswerHandler extends AbortableCall implements Dispatcher.DispatchHandler {
  private status = 0;
  private headers: Record<string, string | string[] | undefined> | undefined;
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private done = false;
  private decoder: AnswerDecoder | undefined;

  constructor(
    signal: CallAbort,
    private readonly settle: Settle,
    private readonly limit: number,
    private readonly request?: { holdAnswer?(bytes: number): void },
  ) {
    super(signal);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // 1xx (100 Continue, 103 Early Hints) come before the answer: not it.
    if (statusCode < 200) return true;
    this.status = statusCode;
    const headers = headersOf(rawHeaders);
    this.headers = headers;
    const encoding = headers['content-encoding'];
    if (encoding === undefined) return true;
    const decoding = decodingFor(encoding);
    // An error answer in an unknown encoding still has its status; its body is only text for the log.
    if (decoding instanceof UnreadableEncoding) {
      if (statusCode < 300) this.fail(decoding);
    } else if (decoding) {
      this.headers = decodedHeaders(headers);
      this.decoder = new AnswerDecoder(
        decoding,
        { data: (chunk) => this.take(chunk), end: () => this.complete(), error: (err) => this.fail(err) },
        resume,
      );
    }
    return !this.done;
  }

  onData(chunk: Buffer): boolean {
    if (this.decoder) return this.decoder.write(chunk);
    return this.take(chunk);
  }

  private take(chunk: Buffer): boolean {
    if (this.done) return false;
    if (this.status < 300) {
      if (this.kept + chunk.length > this.limit) {
        this.fail(new AnswerTooLarge(this.limit));
        return false;
      }
      try {
        this.request?.holdAnswer?.(chunk.length);
      } catch (err) {
        this.fail(err as Error);
        return false;
      }
      this.chunks.push(chunk);
      this.kept += chunk.length;
    } else if (this.kept < ERROR_BODY_LIMIT) {
      // An error answer is kept up to its limit; the rest is read, so the connection can be reused.
      this.chunks.push(chunk);
      this.kept += chunk.length;
    }
    return true;
  }

  onComplete(): void {
    if (this.decoder) this.decoder.end();
    else this.complete();
  }

  private complete(): void {
    if (this.done) return;
    this.done = true;
    this.release();
    const { chunks } = this;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    this.settle(undefined, new WholeAnswer(this.status, this.headers ?? {}, body));
  }

  onError(err: Error): void {
    if (this.done) return;
    this.done = true;
    this.release();
    this.decoder?.destroy();
    this.settle(err, undefined);
  }

  /** Fails the call from here: settles with `err`, then stops the upstream (whose onError then finds it done). */
  private fail(err: Error): void {
    if (this.done) return;
    this.done = true;
    this.release();
    this.decoder?.destroy();
    this.chunks.length = 0;
    this.settle(err, undefined);
    this.abortCall?.(err);
  }
}

/**
 * Raw header pairs as `Dispatcher#request` gives them: names lower-cased, values as latin1 text, a
 * repeated header as an array. (undici's own parser lives in a file that, imported from ESM, adds
 * to an idle gateway's resident memory.)
 */
export function headersOf(raw: readonly Buffer[]): Record<string, string | string[] | undefined> {
  const out: Record<string, string | string[] | undefined> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1').toLowerCase();
    const value = raw[i + 1]!.toString('latin1');
    // Own properties only: a header named `constructor` or `__proto__` is a header like any other.
    const seen = Object.hasOwn(out, name) ? out[name] : undefined;
    if (seen === undefined) {
      if (name === '__proto__') Object.defineProperty(out, name, { value, enumerable: true, configurable: true, writable: true });
      else out[name] = value;
    } else if (typeof seen === 'string') out[name] = [seen, value];
    else seen.push(value);
  }
  return out;
}
