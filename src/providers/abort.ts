/**
 * Cancelling one request's upstream call: by the client leaving, or by the provider's
 * total-time cap. An AbortSignal is an EventTarget set up for transfer between threads,
 * costly to create and to listen on for every request, while undici takes an EventEmitter
 * as its signal too (docs/performance.md, "Cancelling upstream calls" and "Speed-only code, measured"). So this is one, and the
 * real AbortSignal is only made for the few that need one (a retry's sleep, the echo
 * provider, reading an error body), when they ask.
 */
import { EventEmitter } from 'node:events';

/** What an abort looks like to those who only check it. */
export interface AbortState {
  readonly aborted: boolean;
  readonly reason: unknown;
}

export class CallAbort extends EventEmitter implements AbortState {
  aborted = false;
  reason: unknown = undefined;
  #controller: AbortController | undefined;

  /** An AbortSignal that follows this one; made on first use. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /** As AbortController#abort: the first reason wins, and a reasonless abort is a DOMException AbortError. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#controller?.abort(reason);
    this.emit('abort');
  }
}

/**
 * What an undici handler needs of its call's CallAbort (both handlers, whole-answer.ts and
 * streamed-answer.ts, extend it): an abort before the connection is there is applied when undici
 * offers the connection (onConnect); after, through the abort function undici gave, whereupon
 * undici calls the handler's onError with the reason. `release` when the call is over.
 */
export abstract class AbortableCall {
  protected abortCall: ((reason: Error) => void) | undefined;

  constructor(protected readonly signal: CallAbort) {
    // `on`, not `once`: a CallAbort emits 'abort' once at most, and `once` wraps each listener in a new function.
    signal.on('abort', this.onAbort);
  }

  private readonly onAbort = (): void => {
    this.abortCall?.(abortReason(this.signal));
  };

  onConnect(abort: (reason?: Error) => void): void {
    if (this.signal.aborted) abort(abortReason(this.signal));
    else this.abortCall = abort;
  }

  protected release(): void {
    this.signal.off('abort', this.onAbort);
  }
}

/** The signal's reason as an Error, as undici's abort takes it. */
export function abortReason(signal: AbortState): Error {
  const reason = signal.reason;
  return reason instanceof Error ? reason : new Error('The request was aborted.');
}
