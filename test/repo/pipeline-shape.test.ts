/**
 * Two properties of src/pipeline/ that keep its shape visible (issue 22):
 * - no function, method, constructor or arrow takes more than three parameters: what a step needs
 *   travels in the request context, not in long positional lists;
 * - it reaches providers only through the provider seam (providers/types.ts, the kinds' registry,
 *   the call's abort, two plain helpers), never through the HTTP transport's internals.
 * The sources are parsed with the TypeScript compiler, so comments, strings and types are not
 * mistaken for code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PIPELINE = join(ROOT, 'src/pipeline');
const MAX_PARAMETERS = 3;
/**
 * What of src/providers/ the pipeline may import: the seam and its plain helpers (which answer
 * headers reach the client, the credential cut out of error text), never the transport.
 */
const PROVIDER_SEAM = new Set([
  'src/providers/types.ts',
  'src/providers/kinds.ts',
  'src/providers/kind.ts',
  'src/providers/abort.ts',
  'src/providers/response-headers.ts',
  'src/providers/scrub-credential.ts',
]);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.ts$/.test(entry.name) && !/\.test(?:-d)?\.ts$/.test(entry.name)) out.push(path);
  }
  return out;
}

const parse = (text: string, name = 'x.ts') => ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);

/** Each function-like declaration with more than MAX_PARAMETERS parameters (a `this` parameter is not one). */
function longParameterLists(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node)) {
      const count = node.parameters.filter((p) => !(ts.isIdentifier(p.name) && p.name.text === 'this')).length;
      if (count > MAX_PARAMETERS) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        const name = node.name && ts.isIdentifier(node.name) ? node.name.text : ts.SyntaxKind[node.kind];
        found.push(`${line} ${name} (${count} parameters)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every module specifier a file imports or re-exports from, static or dynamic. */
function importsOf(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The imports of a file at `file` (repository-relative) that reach into src/providers/ past the seam. */
function providerInternals(source: ts.SourceFile, file: string): string[] {
  const out: string[] = [];
  for (const specifier of importsOf(source)) {
    if (!specifier.startsWith('.')) continue;
    const target = relative(ROOT, resolve(ROOT, dirname(file), specifier)).split('\\').join('/').replace(/\.js$/, '.ts');
    if (target.startsWith('src/providers/') && !PROVIDER_SEAM.has(target)) out.push(specifier);
  }
  return out;
}

describe('no function in src/pipeline/ takes more than three parameters', () => {
  it.each([
    ['function f(a: number, b: number, c: number, d: number) {}'],
    ['export async function proxy(req: R, res: S, record: C, state: T, deps: D) {}'],
    ['const f = (a, b, c, d) => a;'],
    ['const f = async function (a, b, c, d) {};'],
    ['class C { m(a: number, b: number, c: number, d?: number) {} }'],
    ['class C { constructor(readonly a: A, readonly b: B, readonly c: C, private readonly d: D) {} }'],
    ['class C { static make(a, b, c, ...rest) {} }'],
    ['const o = { send(a, b, c, d) {} };'],
    ['list.map((a, b, c, d) => a);'],
  ])('finds the long list in %j', (code) => {
    expect(longParameterLists(parse(code))).toHaveLength(1);
  });

  it.each([
    ['function f(a: number, b: number, c: number) {}'],
    ['function f(this: Window, a: number, b: number, c: number) {}'],
    ['const f = (ctx) => ctx.record;'],
    ['class C { constructor(readonly a: A, readonly b: B, c: C) {} m({ a, b, c, d }: Bag) {} }'],
    ['// function f(a, b, c, d) {}\nconst s = "function g(a, b, c, d) {}";'],
  ])('three or fewer, a destructured object, comments and strings are fine: %j', (code) => {
    expect(longParameterLists(parse(code))).toEqual([]);
  });

  it('holds for every source file', () => {
    const offenders: string[] = [];
    for (const path of sourceFiles(PIPELINE)) {
      const file = relative(ROOT, path).split('\\').join('/');
      for (const found of longParameterLists(parse(readFileSync(path, 'utf8'), file))) offenders.push(`${file}:${found}`);
    }
    expect(offenders).toEqual([]);
  });
});

describe('src/pipeline/ reaches providers only through the provider seam', () => {
  it.each([
    ["import { transportError } from '../../providers/http.js';", 'src/pipeline/relay/context.ts'],
    ["import { ERROR_BODY_LIMIT } from '../providers/whole-answer.js';", 'src/pipeline/attempts.ts'],
    ["import type { StreamAnswerHandler } from '../providers/streamed-answer.js';", 'src/pipeline/attempts.ts'],
    ["export { lean } from '../providers/undici-lean.js';", 'src/pipeline/attempts.ts'],
    ["const m = await import('../providers/upstream-error.js');", 'src/pipeline/attempts.ts'],
    ["let x: import('../providers/echo/provider.js').Echo;", 'src/pipeline/attempts.ts'],
  ])('finds the import in %j', (code, file) => {
    expect(providerInternals(parse(code), file)).toHaveLength(1);
  });

  it.each([
    ["import type { Provider } from '../../providers/types.js';", 'src/pipeline/relay/context.ts'],
    ["import { providerKind } from '../providers/kinds.js';", 'src/pipeline/prepare.ts'],
    ["import { CallAbort } from '../providers/abort.js';", 'src/pipeline/handle.ts'],
    ["import { relay } from './relay/relay.js';", 'src/pipeline/attempts.ts'],
    ["// import { transportError } from '../providers/http.js';", 'src/pipeline/attempts.ts'],
  ])('the seam, and what is not a provider, is fine: %j', (code, file) => {
    expect(providerInternals(parse(code), file)).toEqual([]);
  });

  it('holds for every source file', () => {
    const offenders: string[] = [];
    for (const path of sourceFiles(PIPELINE)) {
      const file = relative(ROOT, path).split('\\').join('/');
      for (const specifier of providerInternals(parse(readFileSync(path, 'utf8'), file), file)) offenders.push(`${file} imports ${specifier}`);
    }
    expect(offenders).toEqual([]);
  });
});
