/**
 * Text that came from outside (a request, an upstream answer, a recording, the config) made
 * safe to print on a terminal. Raw, it could move the cursor, clear the screen, set the window
 * title (ESC and C1 sequences), or make one log line look like another (CR, LF, bidi overrides).
 *
 * What is escaped, everywhere the same way:
 * - C0 controls U+0000–U+001F (ESC, CR, LF, TAB, BS, BEL, …), DEL U+007F and C1 controls
 *   U+0080–U+009F (U+009B is a one-byte CSI to many terminals);
 * - the line and paragraph separators U+2028, U+2029;
 * - the bidi format characters U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069, which
 *   reorder what follows them on screen;
 * - lone surrogates (half of a UTF-16 pair, which no terminal can show).
 *
 * Escapes are `\n`, `\r`, `\t`, `\xHH` up to U+00FF and `\uHHHH` above. Colour the escaped text,
 * never escape coloured text: chalk's own sequences would be escaped with the rest.
 */

/** A code point that is escaped (lone surrogates: `u` mode sees a pair as one code point, outside the class). */
const UNSAFE_CLASS = '\\x00-\\x1f\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069\\ud800-\\udfff';

const UNSAFE_TEST = new RegExp(`[${UNSAFE_CLASS}]`, 'u');
const FIELD_TEST = new RegExp(`[\\\\${UNSAFE_CLASS}]`, 'u');
const FIELD_ALL = new RegExp(`[\\\\${UNSAFE_CLASS}]`, 'gu');
const LINES_TEST = new RegExp(`[${UNSAFE_CLASS.replace('\\x00-\\x1f', '\\x00-\\x09\\x0b-\\x1f')}]`, 'u');
const LINES_ALL = new RegExp(LINES_TEST.source, 'gu');
/** What JSON.stringify leaves raw inside its strings (it escapes C0, `"` and `\` itself, and lone surrogates). */
const JSON_TEST = /[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
const JSON_ALL = new RegExp(JSON_TEST.source, 'g');

const hex = (code: number, width: number) => code.toString(16).padStart(width, '0');

function escapeOne(ch: string): string {
  switch (ch) {
    case '\\':
      return '\\\\';
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    default: {
      const code = ch.charCodeAt(0);
      return code <= 0xff ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`;
    }
  }
}

/**
 * One field of a line (a model name, a path, a header value, an error text): every unsafe code
 * point escaped, LF and TAB too, and a backslash doubled, so what is printed reads back to
 * exactly one text (`\x1b` printed is an ESC received; `\\x1b` printed is a backslash received).
 */
export function printable(text: string): string {
  // Nearly every text has nothing to escape: one test, which allocates nothing, returns it as it is.
  return FIELD_TEST.test(text) ? text.replace(FIELD_ALL, escapeOne) : text;
}

/** Whether `text` has nothing that is escaped (a backslash is safe; it is only doubled in fields). */
export function safeToPrint(text: string): boolean {
  return !UNSAFE_TEST.test(text);
}

/**
 * A message of several lines composed by the gateway (an error that quotes values, a notice):
 * line breaks kept, every other unsafe code point escaped. Backslashes stay as they are, so a
 * message quoting fields already passed through `printable` or `printableJson` prints as it is.
 */
export function printableLines(text: string): string {
  return LINES_TEST.test(text) ? text.replace(LINES_ALL, escapeOne) : text;
}

/**
 * `JSON.stringify(value, null, indent)` that is safe to print: the code points JSON leaves raw
 * inside strings (DEL, C1, U+2028/2029, bidi) written as `\uHHHH`, which is still the same JSON.
 */
export function printableJson(value: unknown, indent?: number): string {
  const json = JSON.stringify(value, null, indent) as string | undefined;
  if (json === undefined) return String(json);
  return JSON_TEST.test(json) ? json.replace(JSON_ALL, (ch) => `\\u${hex(ch.charCodeAt(0), 4)}`) : json;
}
