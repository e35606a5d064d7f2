/**
 * Incremental SSE decoder: bytes → lines → events. Handles CR, LF and CRLF line
 * ends split across chunks and UTF-8 characters split across chunks (the reason
 * openai-node's line decoder exists). Comments (`:` lines) are dropped.
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

  // Line ends are found with the native indexOf, so a chunk's text is not walked character by character
  // in JS and a long line arriving in many chunks is not scanned again with each one.
  const feed = (s: string, out: SseEvent[]) => {
    if (s === '') return;
    let i = 0;
    if (pendingCr) {
      // The LF of a CRLF whose CR ended the previous chunk.
      pendingCr = false;
      if (s.charCodeAt(0) === 10 /* \n */) i = 1;
    }
    let lineStart = i;
    let lf = s.indexOf('\n', i);
    let cr = s.indexOf('\r', i);
    while (lf !== -1 || cr !== -1) {
      const end = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr;
      line(buffer === '' ? s.slice(lineStart, end) : buffer + s.slice(lineStart, end), out);
      buffer = '';
      if (end === cr) {
        if (end + 1 === s.length) {
          // May be the first half of a CRLF split across chunks.
          pendingCr = true;
          i = end + 1;
        } else {
          i = s.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
        }
      } else {
        i = end + 1;
      }
      lineStart = i;
      if (lf !== -1 && lf < i) lf = s.indexOf('\n', i);
      if (cr !== -1 && cr < i) cr = s.indexOf('\r', i);
    }
    if (lineStart < s.length) buffer += s.slice(lineStart);
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
