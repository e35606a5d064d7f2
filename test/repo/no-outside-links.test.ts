/**
 * Everything the repository says must be followable by someone who cloned it: no file points at a folder outside
 * the checkout (a teammate's `shared/` notes, one machine's absolute paths), and every `docs/*.md` it names, with
 * the section it quotes, is in the repository.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Absolute paths of one machine or of the team's private folders; sanitised fixture paths (`/home/user/…`) are examples. */
const PRIVATE_PATHS: readonly RegExp[] = [
  /\/work\//,
  /\/root\//,
  /\/tmp\/s\d/,
  /(?<![\w.-])shared\/(docs|fixtures|seed|hooks)\b/,
  // A relative path through a folder named `shared`: the team's notes sit in one beside the checkout, so the
  // repository names none of its own folders so, and a reader never has to work out which one is meant.
  /(?<![\w.@-])(?:\.{1,2}\/)+(?:[\w.@-]+\/)*shared\//,
];

/**
 * A web page given as a reference (`@see https://…`, a Markdown link to one): the repository's own docs say what
 * the gateway relies on. URLs the code calls or tests (`https://api.openai.com/v1`) are not references.
 */
const WEB_REFERENCE = /@see\s+https?:\/\/|\]\(https?:\/\//;

/** A relative path (`../…`) not inside another path (`/v1/../x` is a URL under test, not a reference). */
const RELATIVE = /(?<![\w/.@-])((?:\.\.\/)+[\w.@${}-]*)/g;
/** A repository document named from anywhere: `docs/name.md`, with the quoted section when one follows. */
const DOC = /(?<![\w/.-])(docs\/[\w-]+\.md)(?:, "([^"]+)")?/g;

interface Finding {
  readonly line: number;
  readonly problem: string;
}

/** What is wrong with one file's text, line by line. `file` is its path from the repository root. */
function findOutsideLinks(file: string, text: string, root: string, exists: (path: string) => string | undefined): Finding[] {
  const found: Finding[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    for (const pattern of PRIVATE_PATHS) {
      const m = pattern.exec(line);
      if (m) found.push({ line: i + 1, problem: `a path outside the repository (${m[0]})` });
    }
    if (WEB_REFERENCE.test(line)) found.push({ line: i + 1, problem: 'a web page outside the repository as a reference' });
    for (const m of line.matchAll(RELATIVE)) {
      const target = resolve(root, dirname(file), m[1]!);
      if (target !== root && !target.startsWith(root + sep)) found.push({ line: i + 1, problem: `${m[1]} leads outside the repository` });
      // A document's relative link must lead somewhere; in code such text may be a template or a test input.
      else if (file.endsWith('.md') && exists(relative(root, target)) === undefined) found.push({ line: i + 1, problem: `${m[1]} is not in the repository` });
    }
    for (const m of line.matchAll(DOC)) {
      const doc = exists(m[1]!);
      if (doc === undefined) found.push({ line: i + 1, problem: `${m[1]} is not in the repository` });
      else if (m[2] !== undefined && !new RegExp(`^#+ ${escapeRegExp(m[2])}\\s*$`, 'm').test(doc)) found.push({ line: i + 1, problem: `${m[1]} has no section "${m[2]}"` });
    }
  }
  return found;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** This file: its table below quotes the very lines it forbids. */
const SELF = 'test/repo/no-outside-links.test.ts';

/** Files git tracks or would track (new ones not yet added), without binary files. */
function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return [...new Set(out.split('\0'))].filter((f) => f !== '' && f !== SELF && !/\.(png|jpe?g|gif|ico|woff2?)$/.test(f) && existsSync(join(ROOT, f)));
}

/** A file's text ('' for a folder), or undefined when there is none. */
const readDoc = (path: string): string | undefined => {
  const full = join(ROOT, path);
  if (!existsSync(full)) return undefined;
  return statSync(full).isDirectory() ? '' : readFileSync(full, 'utf8');
};

describe('no link leads outside the repository', () => {
  it('holds for every file in the repository', () => {
    const files = repositoryFiles();
    expect(files.length).toBeGreaterThan(100);
    const report: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const f of findOutsideLinks(file, text, ROOT.replace(/[/\\]$/, ''), readDoc)) report.push(`${file}:${f.line}: ${f.problem}`);
    }
    expect(report).toEqual([]);
  });

  // The checker itself, on lines of the kinds that were once committed and of the kinds that must pass.
  const root = '/r';
  const OUTSIDE = 'shared';
  const WORK = ['', 'work', ''].join('/');
  // Assembled, so that this file holds no web link either.
  const WEB = ['https', '//'].join(':');
  const docs: Record<string, string> = { 'docs/performance.md': '# Performance\n\n## Logging\n' };
  const check = (file: string, line: string) => findOutsideLinks(file, line, root, (p) => docs[p]).map((f) => f.problem);

  it.each([
    // Assembled, so that this file holds no such link itself.
    ['src/cli/snippets.ts', ` * @see ../../../${OUTSIDE}/docs/clients.md section 1`],
    ['src/protocols/responses/codec/status.ts', ` * @see ../../../../../${OUTSIDE}/docs/protocols.md F8, F9`],
    ['src/protocols/chat/codec/usage.ts', ` * @see ${WORK}${OUTSIDE}/docs/protocols.md F9`],
    ['bench/run.mjs', ` * run, interleaved (issue 4, see ${OUTSIDE}/docs/performance.md).`],
    ['bench/lib/bodies.mjs', ` * fixtures (copies of ../${OUTSIDE}/fixtures/clients).`],
    ['README.md', 'Notes are in /root/notes/perf.md and /tmp/s7/out.json.'],
    ['test/fixtures/clients/README.md', 'What each client needs is in `../../docs/clients.md`.'],
    ['src/translate/rename-model.ts', ' * together (docs/performance.md, "Finding 3"), so the new name'],
    ['src/inspector/page/api.ts', `import type { PushEvent } from '../${OUTSIDE}/types.js';`],
    ['src/translate/chat/decode-messages.ts', `import { append } from '../${OUTSIDE}/append.js';`],
    ['src/protocols/chat/codec/decode-tools.ts', ` * @see ${WEB}vendor.example/docs/api-reference/chat/create`],
    ['README.md', `The config is found with [cosmiconfig](${WEB}code.example/cosmiconfig).`],
  ])('flags %s: %s', (file, line) => {
    expect(check(file, line)).not.toEqual([]);
  });

  it.each([
    ['src/inspector/page/api.ts', "import type { PushEvent } from '../common/types.js';"],
    ['src/cli/schema-ref.ts', "new URL('../../schema/gateway.schema.json', import.meta.url)"],
    ['src/providers/anthropic/kind.ts', "const BASE_URL = 'https://api.anthropic.com';"],
    ['src/config/json-schema.test.ts', 'new URL(`../../${file}`, import.meta.url)'],
    ['test/e2e/record-replay.test.ts', "hostile({ path: '/v1/../../x' }),"],
    ['test/fixtures/clients/codex.json', '"text": "<cwd>/home/user/project</cwd>"'],
    ['src/log/logger.ts', '  // (docs/performance.md, "Logging"). A timer, unlike a per-turn setImmediate'],
  ])('accepts %s: %s', (file, line) => {
    expect(check(file, line)).toEqual([]);
  });
});
