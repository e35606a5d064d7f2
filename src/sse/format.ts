/**
 * The one writer of server-sent event frames: the translators' stream encoders (and through them
 * the echo provider), the protocols' error frames and the inspector's push stream all write through
 * it, so a frame's bytes are decided here once.
 *
 * A frame ends at its first blank line, and CR, LF and CRLF each end a line (WHATWG HTML,
 * "Server-sent events", interpreting an event stream). JSON.stringify escapes CR and LF inside
 * strings, so JSON data is one line as it is, and a payload can never end its frame early or forge
 * a field. An event name has no such form and is refused when it holds a line break; a comment's
 * lines each become their own comment line.
 */

const LINE_BREAK = /\r\n|\r|\n/;

function eventLine(event: string): string {
  if (LINE_BREAK.test(event)) throw new Error(`An SSE event name cannot hold a line break: ${JSON.stringify(event)}`);
  return `event: ${event}\n`;
}

/** A named event with JSON data: `event: <name>`, `data: <json>`. Responses and Messages streams. */
export const eventFrame = (event: string, data: object): string => `${eventLine(event)}data: ${JSON.stringify(data)}\n\n`;

/** A data-only frame with JSON data. Chat Completions streams. */
export const dataFrame = (data: object): string => `data: ${JSON.stringify(data)}\n\n`;

/** Chat Completions' end of stream. */
export const DONE_FRAME = 'data: [DONE]\n\n';

/** A comment, which readers ignore: a keep-alive. Each line of `text` becomes its own comment line. */
export const commentFrame = (text: string): string => `: ${text.split(LINE_BREAK).join('\n: ')}\n\n`;
