/**
 * Incremental SSE decoder: bytes → lines → events. Handles CR, LF and CRLF line
 * ends split across chunks and UTF-8 characters split across chunks (the reason
 * openai-node's line decoder exists). Comments (`:` lines) are dropped.
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
import { StringDecoder } from 'node:string_decoder';

export interface SseEvent {
  /** The `event:` field, if any. */
  readonly event: string | undefined;
  /** `data:` lines joined with "\n". */
  readonly data: string;
}

export interface SseDecoder {
  /** Feed bytes; returns the events completed by them. */
  push(chunk: Buffer | string): SseEvent[];
  /** End of stream: returns a last event left without its blank line, if any. */
  end(): SseEvent[];
}

export function createSseDecoder(): SseDecoder {
  const text = new StringDecoder('utf8');
  let buffer = '';
  let pendingCr = false;
  let event: string | undefined;
  let data: string[] = [];

  const flushEvent = (out: SseEvent[]) => {
    if (data.length > 0 || event !== undefined) {
      if (data.length > 0) out.push({ event, data: data.join('\n') });
      event = undefined;
      data = [];
    }
  };

  const line = (l: string, out: SseEvent[]) => {
    if (l === '') return flushEvent(out);
    if (l.charCodeAt(0) === 58 /* : */) return;
    const colon = l.indexOf(':');
    const field = colon === -1 ? l : l.slice(0, colon);
    let value = colon === -1 ? '' : l.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  };

  const feed = (s: string, out: SseEvent[]) => {
    buffer += s;
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer.charCodeAt(i);
      if (c === 10 /* \n */) {
        if (pendingCr && i === start) {
          // The LF of a CRLF whose CR ended the previous chunk.
          pendingCr = false;
          start = i + 1;
          continue;
        }
        line(buffer.slice(start, i), out);
        start = i + 1;
      } else if (c === 13 /* \r */) {
        line(buffer.slice(start, i), out);
        // A CR at the very end may be the first half of a CRLF split across chunks.
        pendingCr = i + 1 === buffer.length;
        if (buffer.charCodeAt(i + 1) === 10) i++;
        start = i + 1;
        continue;
      }
      pendingCr = false;
    }
    buffer = buffer.slice(start);
  };

  return {
    push(chunk) {
      const out: SseEvent[] = [];
      feed(typeof chunk === 'string' ? chunk : text.write(chunk), out);
      return out;
    },
    end() {
      const out: SseEvent[] = [];
      feed(text.end(), out);
      if (buffer !== '') line(buffer, out);
      buffer = '';
      flushEvent(out);
      return out;
    },
  };
}
