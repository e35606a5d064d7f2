import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { printable, printableJson, printableLines, safeToPrint } from './terminal-text.js';

/** Every code point a terminal could act on, or that can disguise a line: none may be printed raw. */
const RAW_UNSAFE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|[\ud800-\udfff]/u;

/** Reads printable's output back: the escaping is unambiguous exactly when this recovers every input. */
const readBack = (text: string) =>
  text.replace(/\\(\\|n|r|t|x[0-9a-f]{2}|u[0-9a-f]{4})/g, (_, e: string) =>
    e === '\\' ? '\\' : e === 'n' ? '\n' : e === 'r' ? '\r' : e === 't' ? '\t' : String.fromCharCode(parseInt(e.slice(1), 16)),
  );

/** [what, input, printed] */
const FIELD_CASES: readonly (readonly [string, string, string])[] = [
  // C0 controls
  ['ESC clear screen', 'a\x1b[2Jb', 'a\\x1b[2Jb'],
  ['ESC cursor home + erase line', '\x1b[H\x1b[K200 ok', '\\x1b[H\\x1b[K200 ok'],
  ['OSC window title ended by BEL', '\x1b]0;pwned\x07', '\\x1b]0;pwned\\x07'],
  ['OSC 8 hyperlink ended by ST', '\x1b]8;;http://x\x1b\\', '\\x1b]8;;http://x\\x1b\\\\'],
  ['CR rewrites the line', 'gpt-4\r12:00:00 200 POST /v1/forged', 'gpt-4\\r12:00:00 200 POST /v1/forged'],
  ['LF starts a new line', 'a\nb', 'a\\nb'],
  ['TAB', 'a\tb', 'a\\tb'],
  ['BS and BEL', 'ok\b\b\x07', 'ok\\x08\\x08\\x07'],
  ['NUL and US', '\x00\x1f', '\\x00\\x1f'],
  ['DEL', 'x\x7f', 'x\\x7f'],
  // C1 controls
  ['C1 CSI', 'x\u009b2J', 'x\\x9b2J'],
  ['C1 OSC and ST', '\u009d0;pwned\u009c', '\\x9d0;pwned\\x9c'],
  ['C1 NEL and PAD', '\u0085\u0080', '\\x85\\x80'],
  // line separators and bidi
  ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
  ['RLO override', 'file\u202etxt.exe', 'file\\u202etxt.exe'],
  ['LRE RLE PDF LRO', '\u202a\u202b\u202c\u202d', '\\u202a\\u202b\\u202c\\u202d'],
  ['isolates', '\u2066\u2067\u2068\u2069', '\\u2066\\u2067\\u2068\\u2069'],
  ['LRM RLM ALM', '\u200e\u200f\u061c', '\\u200e\\u200f\\u061c'],
  // lone surrogates
  ['lone high surrogate', 'a\ud83d', 'a\\ud83d'],
  ['lone low surrogate', '\ude00b', '\\ude00b'],
  ['pair in the wrong order', '\ude00\ud83d', '\\ude00\\ud83d'],
  // backslashes: doubled, so escaped-looking text reads back as what it was
  ['a backslash', 'C:\\models\\gpt', 'C:\\\\models\\\\gpt'],
  ['text that looks escaped', '\\x1b[2J', '\\\\x1b[2J'],
  ['text that looks like a bidi escape', '\\u202e', '\\\\u202e'],
  ['a real ESC after a backslash', '\\\x1b', '\\\\\\x1b'],
];

const SAFE_CASES = ['gpt-4.1', 'claude-sonnet-4-5', '/v1/chat/completions', 'qwen2.5-coder:7b', 'café 中文 😀', '👩‍💻 ZWJ emoji', ''];

describe('printable', () => {
  it.each(FIELD_CASES)('%s', (_what, input, printed) => {
    const out = printable(input);
    expect(out).toBe(printed);
    expect(out).not.toMatch(RAW_UNSAFE);
    expect(readBack(out)).toBe(input);
  });

  it.each(SAFE_CASES)('leaves %j as it is', (text) => {
    expect(printable(text)).toBe(text);
    expect(safeToPrint(text)).toBe(true);
  });

  it('prints different texts differently (no two inputs look alike)', () => {
    const inputs = [...FIELD_CASES.map(([, input]) => input), ...FIELD_CASES.map(([, , printed]) => printed), ...SAFE_CASES];
    const outputs = new Set(inputs.map(printable));
    expect(outputs.size).toBe(new Set(inputs).size);
  });

  it('keeps chalk colours when the text is escaped before it is coloured', () => {
    const c = new Chalk({ level: 1 });
    const line = c.red(printable('gpt\x1b]0;pwned\x07\u009b2J'));
    expect(line).toBe('\x1b[31mgpt\\x1b]0;pwned\\x07\\x9b2J\x1b[39m');
    // The only ESCs left are chalk's own SGR sequences.
    expect(line.replace(/\x1b\[\d+m/g, '')).not.toMatch(RAW_UNSAFE);
  });
});

describe('printableLines', () => {
  it.each([
    ['keeps line breaks', 'line 1\nline 2', 'line 1\nline 2'],
    ['escapes CR, ESC, C1, bidi between them', 'a\r\x1b[2J\nb\u009b\u202e', 'a\\r\\x1b[2J\nb\\x9b\\u202e'],
    ['escapes TAB and lone surrogates', 'a\tb\ud800', 'a\\tb\\ud800'],
    ['leaves backslashes: fields in it are already escaped', 'quoted "C:\\\\x" and \\x1b', 'quoted "C:\\\\x" and \\x1b'],
  ])('%s', (_what, input, printed) => {
    const out = printableLines(input);
    expect(out).toBe(printed);
    expect(out.replace(/\n/g, '')).not.toMatch(RAW_UNSAFE);
  });

  it('prints what printable and printableJson made as it is', () => {
    for (const [, input] of FIELD_CASES) {
      expect(printableLines(printable(input))).toBe(printable(input));
      expect(printableLines(printableJson({ input }, 2))).toBe(printableJson({ input }, 2));
    }
  });
});

describe('printableJson', () => {
  it.each([
    ['C0 (JSON escapes it itself)', { a: '\x1b]0;pwned\x07' }, '{"a":"\\u001b]0;pwned\\u0007"}'],
    ['C1 and DEL, which JSON leaves raw', { a: '\u009b2J\x7f' }, '{"a":"\\u009b2J\\u007f"}'],
    ['line separators, which JSON leaves raw', ['\u2028', '\u2029'], '["\\u2028","\\u2029"]'],
    ['bidi, which JSON leaves raw', { '\u202ekey': '\u2066x\u2069' }, '{"\\u202ekey":"\\u2066x\\u2069"}'],
    ['a lone surrogate', '\ud83d', '"\\ud83d"'],
    ['text that looks escaped', '\\u202e', '"\\\\u202e"'],
    ['nothing to escape', { model: 'gpt-4.1', n: 1 }, '{"model":"gpt-4.1","n":1}'],
  ])('%s', (_what, value, printed) => {
    const out = printableJson(value);
    expect(out).toBe(printed);
    expect(out).not.toMatch(RAW_UNSAFE);
    expect(JSON.parse(out)).toEqual(value);
  });

  it('indents like JSON.stringify, its line breaks kept', () => {
    const value = { headers: { 'user-agent': 'a\u0085b' }, list: [1] };
    const out = printableJson(value, 2);
    expect(out).toBe('{\n  "headers": {\n    "user-agent": "a\\u0085b"\n  },\n  "list": [\n    1\n  ]\n}');
    expect(JSON.parse(out)).toEqual(value);
  });

  it('prints undefined as JSON.stringify names it', () => {
    expect(printableJson(undefined)).toBe('undefined');
  });
});
