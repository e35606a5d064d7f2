/**
 * An incremental check that streamed tool arguments are still the beginning of
 * a JSON object, and the shortest text that would close what was accepted.
 * Anthropic clients parse the concatenated `input_json_delta` fragments as one
 * object, while an OpenAI upstream may stream invalid
 * or truncated JSON: the stream encoder forwards fragments only while they keep
 * the text a valid object prefix, and closes it at the end if it must.
 */

type Mode =
  | 'start' // before the top-level `{`
  | 'key_or_end' // after `{`
  | 'key' // after `,` in an object
  | 'key_string'
  | 'colon'
  | 'value' // after `:` or after `,` in an array
  | 'value_or_end' // after `[`
  | 'string'
  | 'number'
  | 'literal'
  | 'after_value'
  | 'done';

const WS = new Set([' ', '\t', '\n', '\r']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX = /^[0-9a-fA-F]$/;

/**
 * Where a number is, after the characters read so far: one step per character (testing the whole
 * number so far against a pattern at each digit would cost the square of its length).
 */
type NumberPart = 'sign' | 'zero' | 'int' | 'dot' | 'frac' | 'exp' | 'exp_sign' | 'exp_digits';
/** Parts where the number may end. */
const NUMBER_ENDS: ReadonlySet<NumberPart> = new Set(['zero', 'int', 'frac', 'exp_digits']);
const isDigit = (c: string) => c >= '0' && c <= '9';
const isNumberChar = (c: string) => isDigit(c) || c === '+' || c === '-' || c === '.' || c === 'e' || c === 'E';

/** The part after `c`, or undefined when `c` cannot follow. */
function nextNumberPart(part: NumberPart, c: string): NumberPart | undefined {
  const digit = isDigit(c);
  const exp = c === 'e' || c === 'E';
  switch (part) {
    case 'sign':
      return c === '0' ? 'zero' : digit ? 'int' : undefined;
    case 'zero':
      return c === '.' ? 'dot' : exp ? 'exp' : undefined;
    case 'int':
      return digit ? 'int' : c === '.' ? 'dot' : exp ? 'exp' : undefined;
    case 'dot':
      return digit ? 'frac' : undefined;
    case 'frac':
      return digit ? 'frac' : exp ? 'exp' : undefined;
    case 'exp':
      return c === '+' || c === '-' ? 'exp_sign' : digit ? 'exp_digits' : undefined;
    case 'exp_sign':
    case 'exp_digits':
      return digit ? 'exp_digits' : undefined;
  }
}

export interface JsonObjectPrefix {
  /** Feeds more text; returns how many of its characters keep the whole a valid object prefix (all, unless it broke). */
  push(text: string): number;
  /** Some character could not continue a JSON object; nothing after it was accepted. */
  readonly broken: boolean;
  /** Only whitespace accepted so far. */
  readonly empty: boolean;
  /** What was accepted is one complete object (plus whitespace). */
  readonly complete: boolean;
  /** The text that turns what was accepted into a complete object. */
  completion(): string;
}

export function createJsonObjectPrefix(): JsonObjectPrefix {
  let mode: Mode = 'start';
  const stack: ('}' | ']')[] = [];
  let broken = false;
  // Inside strings: a pending backslash, or how many \u hex digits are still due.
  let backslash = false;
  let hexLeft = 0;
  let number: NumberPart = 'sign';
  let literal = '';
  let literalAt = 0;

  const afterValue = () => {
    mode = stack.length === 0 ? 'done' : 'after_value';
  };

  /** Starts a value at `c`; false when `c` cannot start one. */
  function startValue(c: string): boolean {
    if (c === '{' || c === '[') {
      stack.push(c === '{' ? '}' : ']');
      mode = c === '{' ? 'key_or_end' : 'value_or_end';
    } else if (c === '"') {
      mode = 'string';
    } else if (c === '-' || isDigit(c)) {
      number = c === '-' ? 'sign' : c === '0' ? 'zero' : 'int';
      mode = 'number';
    } else if (c === 't' || c === 'f' || c === 'n') {
      literal = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
      literalAt = 1;
      mode = 'literal';
    } else {
      return false;
    }
    return true;
  }

  /** Closes the innermost container. */
  const close = (): true => {
    stack.pop();
    afterValue();
    return true;
  };

  /** One string character; `close` is the mode after the closing quote. */
  function stringChar(c: string, close: () => void): boolean {
    if (hexLeft > 0) {
      if (!HEX.test(c)) return false;
      hexLeft--;
    } else if (backslash) {
      if (c === 'u') hexLeft = 4;
      else if (!ESCAPES.has(c)) return false;
      backslash = false;
    } else if (c === '\\') backslash = true;
    else if (c === '"') close();
    else if (c < ' ') return false;
    return true;
  }

  function step(c: string): boolean {
    switch (mode) {
      case 'start':
        if (WS.has(c)) return true;
        if (c !== '{') return false;
        stack.push('}');
        mode = 'key_or_end';
        return true;
      case 'key_or_end':
      case 'key':
        if (WS.has(c)) return true;
        if (c === '}' && mode === 'key_or_end') return close();
        if (c !== '"') return false;
        mode = 'key_string';
        return true;
      case 'key_string':
        return stringChar(c, () => (mode = 'colon'));
      case 'colon':
        if (WS.has(c)) return true;
        if (c !== ':') return false;
        mode = 'value';
        return true;
      case 'value':
        return WS.has(c) || startValue(c);
      case 'value_or_end':
        if (WS.has(c)) return true;
        if (c === ']') return close();
        return startValue(c);
      case 'string':
        return stringChar(c, afterValue);
      case 'number': {
        if (isNumberChar(c)) {
          const next = nextNumberPart(number, c);
          if (next === undefined) return false;
          number = next;
          return true;
        }
        if (!NUMBER_ENDS.has(number)) return false;
        afterValue();
        return step(c);
      }
      case 'literal':
        if (c !== literal[literalAt]) return false;
        if (++literalAt === literal.length) afterValue();
        return true;
      case 'after_value':
        if (WS.has(c)) return true;
        if (c === stack.at(-1)) return close();
        if (c !== ',') return false;
        mode = stack.at(-1) === '}' ? 'key' : 'value';
        return true;
      case 'done':
        return WS.has(c);
    }
  }

  /** Closes an open string: a pending escape or \u sequence first. */
  const closeString = () => `${hexLeft > 0 ? '0'.repeat(hexLeft) : backslash ? '\\' : ''}"`;

  function openValueCompletion(): string {
    switch (mode) {
      case 'start':
        return '{';
      case 'key':
        // A comma already promised another member; an empty key with null keeps the object valid.
        return '"":null';
      case 'key_string':
        return `${closeString()}:null`;
      case 'colon':
        return ':null';
      case 'value':
        return 'null';
      case 'string':
        return closeString();
      case 'number':
        return NUMBER_ENDS.has(number) ? '' : '0';
      case 'literal':
        return literal.slice(literalAt);
      default:
        return '';
    }
  }

  return {
    push(text) {
      if (broken) return 0;
      for (let i = 0; i < text.length; i++) {
        if (!step(text[i]!)) {
          broken = true;
          return i;
        }
      }
      return text.length;
    },
    get broken() {
      return broken;
    },
    get empty() {
      return mode === 'start';
    },
    get complete() {
      return mode === 'done';
    },
    completion() {
      if (mode === 'done') return '';
      const head = openValueCompletion();
      const closers = mode === 'start' ? '}' : [...stack].reverse().join('');
      return head + closers;
    },
  };
}
