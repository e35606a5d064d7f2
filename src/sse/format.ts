/**
 * The one writer of server-sent event frames: the translators' stream encoders, the protocols'
 * error frames, the echo provider and the inspector's push stream all write through it, so a
 * frame's bytes are decided here once.
 *
 * A frame ends at its first blank line, and CR, LF and CRLF each end a line (WHATWG HTML,
 * "Server-sent events", interpreting an event stream). JSON.stringify escapes CR and LF inside
 * strings, so JSON data is one line as it is. Text data is split at its line breaks into several
 * `data:` lines, which a reader joins back with LF, so a payload can never end its frame early
 * or forge a field. An event name has no such form and is refused when it holds a line break.
 */

const LINE_BREAK = /\r\n|\r|\n/;

function eventLine(event: string): string {
  if (LINE_BREAK.test(event)) throw new Error(`An SSE event name cannot hold a line break: ${JSON.stringify(event)}`);
  return `event: ${event}\n`;
}

/** `data:` lines for `text`: one per line of it. */
function dataLines(text: string): string {
  return LINE_BREAK.test(text) ? `data: ${text.split(LINE_BREAK).join('\ndata: ')}\n` : `data: ${text}\n`;
}

/** A named event with JSON data: `event: <name>`, `data: <json>`. Responses and Messages streams. */
export const eventFrame = (event: string, data: object): string => `${eventLine(event)}data: ${JSON.stringify(data)}\n\n`;

/** A data-only frame with JSON data. Chat Completions streams. */
export const dataFrame = (data: object): string => `data: ${JSON.stringify(data)}\n\n`;

/** A frame whose data is already text (optionally named); line breaks in it become more `data:` lines. */
export const textFrame = (text: string, event?: string): string =>
  `${event === undefined ? '' : eventLine(event)}${dataLines(text)}\n`;

/** Chat Completions' end of stream. */
export const DONE_FRAME = 'data: [DONE]\n\n';

/** A comment, which readers ignore: a keep-alive. Each line of `text` becomes its own comment line. */
export const commentFrame = (text: string): string => `: ${text.split(LINE_BREAK).join('\n: ')}\n\n`;
