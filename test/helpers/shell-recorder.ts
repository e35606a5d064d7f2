/**
 * Runs shell snippets the way a developer would paste them, and records what they did.
 * `curl` is a shell function that writes its argv (NUL-separated) and stdin to files;
 * `touch`, `canary`, `id`, `rm`, `sh` and `bash` are canaries on PATH that note they ran. PATH
 * holds nothing else, so any other command fails loudly on stderr. All snippets of a batch run in
 * one shell process, each sourced in its own subshell and directory, so a batch of a few
 * hundred costs one spawn.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface SnippetRun {
  /** curl's arguments, undefined when curl did not run. */
  readonly argv: string[] | undefined;
  /** The same, as the bytes curl got. */
  readonly argvBytes: Buffer[] | undefined;
  /** What curl read on stdin. */
  readonly stdin: Buffer;
  readonly stdout: string;
  readonly stderr: string;
  /** The canary commands that ran, one line each. */
  readonly canary: string;
  readonly status: number;
  /** Files in the snippet's directory besides the ones the harness writes: a redirect that escaped its quotes. */
  readonly strayFiles: string[];
}

const CANARIES = ['touch', 'canary', 'id', 'rm', 'sh', 'bash'];
const HARNESS_FILES = new Set(['snippet.sh', 'argv', 'stdin', 'stdout', 'stderr', 'status', 'canary']);

/** The shells present to run snippets in: bash, and /bin/sh when it is another shell (dash). */
export function shells(): string[] {
  const found = ['/bin/bash', '/usr/bin/bash'].find(existsSync);
  const out = found ? [found] : [];
  if (existsSync('/bin/sh') && found && readFileSync('/bin/sh').compare(readFileSync(found)) !== 0) out.push('/bin/sh');
  return out;
}

function splitNul(raw: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let i = raw.indexOf(0); i !== -1; i = raw.indexOf(0, start)) {
    out.push(raw.subarray(start, i));
    start = i + 1;
  }
  return out;
}

export function runSnippets(shell: string, snippets: readonly string[], env: Readonly<Record<string, string>>): SnippetRun[] {
  const root = mkdtempSync(path.join(tmpdir(), 'mgw-shell-'));
  try {
    const bin = path.join(root, 'bin');
    mkdirSync(bin);
    const bash = ['/bin/bash', '/usr/bin/bash'].find(existsSync)!;
    for (const name of CANARIES) {
      writeFileSync(path.join(bin, name), `#!${bash}\nprintf '%s\\n' "$0 $*" >> "$OUT/canary"\n`);
      chmodSync(path.join(bin, name), 0o755);
    }
    const cases = snippets.map((snippet, i) => {
      const dir = path.join(root, `case${i}`);
      mkdirSync(dir);
      writeFileSync(path.join(dir, 'snippet.sh'), snippet);
      return dir;
    });
    const driver = path.join(root, 'driver.sh');
    writeFileSync(
      driver,
      [
        // A function, not a script: one exec (cat) per snippet rather than a shell's start-up.
        `curl() { printf '%s\\0' "$@" >"$OUT/argv"; /bin/cat >"$OUT/stdin"; }`,
        'for d in "$ROOT"/case*; do',
        '  ( OUT=$d; export OUT; cd "$d" && . ./snippet.sh ) </dev/null >"$d/stdout" 2>"$d/stderr"',
        '  echo $? >"$d/status"',
        'done',
        '',
      ].join('\n'),
    );
    execFileSync(shell, [driver], { env: { ...env, PATH: bin, ROOT: root, LC_ALL: env.LC_ALL ?? 'C.UTF-8' }, stdio: 'ignore', timeout: 60_000 });
    return cases.map((dir) => {
      const read = (name: string) => (existsSync(path.join(dir, name)) ? readFileSync(path.join(dir, name)) : undefined);
      const raw = read('argv');
      const argvBytes = raw === undefined ? undefined : splitNul(raw);
      return {
        argv: argvBytes?.map((b) => b.toString('utf8')),
        argvBytes,
        stdin: read('stdin') ?? Buffer.alloc(0),
        stdout: read('stdout')?.toString('utf8') ?? '',
        stderr: read('stderr')?.toString('utf8') ?? '',
        canary: read('canary')?.toString('utf8') ?? '',
        status: Number(read('status')?.toString('utf8').trim() ?? NaN),
        strayFiles: readdirSync(dir).filter((f) => !HARNESS_FILES.has(f)),
      };
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
