import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeToPrint } from '../../log/terminal-text.js';
import { runSnippets, shells } from '../../../test/helpers/shell-recorder.js';
import { printfCommand, shellComment, shellQuote } from './shell.js';

const bytes = (text: string) => Buffer.from(new TextEncoder().encode(text));

/** Words a shell reads specially, one class each; `canary` and `touch` note it if they ever run. */
const PAYLOADS: readonly string[] = [
  "'; canary; '",
  '"; canary; "',
  '$(canary)',
  '`canary`',
  '\ncanary\n',
  '\r\ncanary',
  'a; touch x',
  'a && canary || canary',
  'a | canary',
  '> stray',
  '< /etc/passwd',
  '*',
  '{a,b}',
  '~',
  '$HOME',
  '${HOME}',
  '$((1+1))',
  '!!',
  '#',
  '\\',
  "\\'",
  "'\\''",
  '-n',
  '--',
  '%s%n',
  '\x1b[201~\ncanary\n',
  '\x03\ncanary',
  '\x1b]0;title\x07',
  '\u009b2J',
  '\u202Eevil',
  '\u2028canary',
  '\uD800',
  'é😀',
  '',
];

const hostile = fc
  .array(fc.oneof(fc.constantFrom(...PAYLOADS), fc.string({ unit: 'binary', maxLength: 6 }), fc.string({ unit: 'binary-ascii', maxLength: 6 })), { maxLength: 6 })
  .map((parts) => parts.join(''));

/** The values a shell can hold: anything but NUL. */
const noNul = hostile.map((s) => s.replaceAll('\0', ''));

function expectClean(run: ReturnType<typeof runSnippets>[number], label: string): void {
  expect({ canary: run.canary, stderr: run.stderr, stdout: run.stdout, status: run.status, strayFiles: run.strayFiles }, label).toEqual({
    canary: '',
    stderr: '',
    stdout: '',
    status: 0,
    strayFiles: [],
  });
}

// One shell process per batch; the timeout is for a loaded machine.
describe.skipIf(shells().length === 0)('shell text under a real shell', { timeout: 60_000 }, () => {
  const values = [...PAYLOADS.filter((p) => !p.includes('\0')), ...fc.sample(noNul, { numRuns: 100 })];

  it('shellQuote: one word, exactly the value, nothing run, and safe to print', () => {
    for (const [i, shell] of shells().entries()) {
      // dash has no $'…': there, only what single quotes can hold.
      const tried = i === 0 ? values : values.filter(safeToPrint);
      const runs = runSnippets(shell, tried.map((v) => `curl ${shellQuote(v)} end`), { LC_ALL: i === 0 ? 'C.UTF-8' : 'C' });
      tried.forEach((v, j) => {
        const label = `${shell}: ${JSON.stringify(v)} as ${shellQuote(v)}`;
        expectClean(runs[j]!, label);
        expect(runs[j]!.argvBytes, label).toEqual([bytes(v), Buffer.from('end')]);
        expect(safeToPrint(shellQuote(v)), label).toBe(true);
      });
    }
  });

  it('printfCommand: writes exactly the bytes, NUL included, nothing run, safe to print', () => {
    const texts = [...PAYLOADS, 'a\0b\0', '\0', '-v x', '-', '%', '\\0101', ...fc.sample(hostile, { numRuns: 100 })];
    // bash in a UTF-8 locale and in C; dash, which knows no locale.
    const runsIn = shells().flatMap((shell, i) => (i === 0 ? ['C.UTF-8', 'C'] : ['C']).map((locale) => [shell, locale] as const));
    for (const [shell, locale] of runsIn) {
      {
        const runs = runSnippets(shell, texts.map((t) => `${printfCommand(t)} | curl`), { LC_ALL: locale });
        texts.forEach((t, j) => {
          const label = `${shell} ${locale}: ${JSON.stringify(t)} as ${printfCommand(t)}`;
          expectClean(runs[j]!, label);
          expect(runs[j]!.stdin.equals(bytes(t)), label).toBe(true);
          expect(safeToPrint(printfCommand(t)), label).toBe(true);
        });
      }
    }
  });

  it('shellComment: stays one line whatever it quotes', () => {
    const texts = [...PAYLOADS, ...fc.sample(hostile, { numRuns: 50 })];
    for (const shell of shells()) {
      const runs = runSnippets(shell, texts.map((t) => `${shellComment(t)}\ncurl ok`), {});
      texts.forEach((t, j) => {
        expectClean(runs[j]!, `${shell}: ${JSON.stringify(t)}`);
        expect(runs[j]!.argv).toEqual(['ok']);
        expect(shellComment(t)).not.toContain('\n');
      });
    }
  });
});

describe('shellQuote', () => {
  it.each([
    ['qwen2.5-coder:7b', 'qwen2.5-coder:7b'],
    ['http://127.0.0.1:8787/v1', 'http://127.0.0.1:8787/v1'],
    ["it's $HOME", `'it'\\''s $HOME'`],
    ['', "''"],
    ['a\nb', "$'a\\012b'"],
    ["\x1b[31m'\\", "$'\\033[31m\\'\\\\'"],
  ])('%j is written %s', (value, quoted) => {
    expect(shellQuote(value)).toBe(quoted);
  });
});
