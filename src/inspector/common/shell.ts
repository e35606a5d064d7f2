/**
 * Shell text built from values that may be hostile (a recorded request, a model name from the
 * config, a URL or key from the command line). One rule for every value: it becomes one shell
 * word that is exactly the value, in characters that are safe to print (`safeToPrint`), because
 * such text is also pasted into terminals, where a control character acts (Ctrl-C abandons a
 * quoted string, ESC sequences end a bracketed paste).
 *
 * The inspector page and the CLI both use this module, so it imports nothing from Node.
 */
import { printable, safeToPrint } from '../../log/terminal-text.js';

/** Characters no POSIX shell treats specially in an argument: such a value is left bare, for reading. */
const BARE = /^[A-Za-z0-9_@%+=:,./-]+$/;

const utf8 = new TextEncoder();

/** Three-digit octal escapes of a character's UTF-8 bytes (a lone surrogate as U+FFFD's, as any UTF-8 encoder does). */
const octalBytes = (char: string) => [...utf8.encode(char)].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');

/**
 * One shell word that is exactly `value`. Text that is safe to print goes in single quotes, where
 * a POSIX shell gives no character a meaning except the closing quote, written `'\''`. Other text
 * goes in `$'…'` (bash, zsh, ksh, POSIX.1-2024; not dash) with what is unsafe to print written as
 * octal byte escapes, so it reads back to the same bytes in any locale. A NUL cannot be in an
 * argument or an environment variable in any shell; bash ends the word there.
 */
export function shellQuote(value: string): string {
  if (BARE.test(value)) return value;
  if (safeToPrint(value)) return `'${value.replace(/'/g, `'\\''`)}'`;
  let out = '';
  for (const char of value) out += char === '\\' || char === "'" ? `\\${char}` : safeToPrint(char) ? char : octalBytes(char);
  return `$'${out}'`;
}

/** A `#` comment line: whatever the text holds, it stays one line (a line feed is written `\n`). */
export const shellComment = (text: string): string => `# ${printable(text)}`;

/** printf's own escapes for the bytes a reader knows by name. */
const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', '%': '%%', '\\': '\\\\' };

/**
 * A `printf` command that writes exactly the UTF-8 bytes of `text`, NUL included, with no
 * newline added. The bytes go in printf's format string: `%` and `\` are doubled, what is
 * unsafe to print is written as octal escapes, and the format is one single-quoted word that
 * never starts with `-`. printf is built into every POSIX shell (dash too), so a body of any
 * size passes no exec argument limit.
 */
export function printfCommand(text: string): string {
  let format = '';
  for (const char of text) format += NAMED[char] ?? (safeToPrint(char) ? char : octalBytes(char));
  // A leading `-` would be read as an option (bash's `printf -v NAME` assigns instead of writing).
  if (format.startsWith('-')) format = `\\055${format.slice(1)}`;
  return `printf ${shellQuote(format)}`;
}
