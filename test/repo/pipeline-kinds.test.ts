/**
 * src/pipeline/ names no provider kind: what a kind can do (its dialect, whether it counts input
 * tokens) is read from the kind (src/providers/kind.ts), so a new kind touches no pipeline file.
 * A `type` compared with a kind's name, or a switch over one, is what this finds. The sources are
 * parsed, so comments and unrelated strings ('openai' is also an error family) do not count.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROVIDER_KINDS } from '#src/providers/kinds.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KIND_NAMES = new Set<string>(PROVIDER_KINDS.map((k) => k.type));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [path] : [];
  });
}

const isTypeRead = (node: ts.Node): boolean => ts.isPropertyAccessExpression(node) && node.name.text === 'type';
const isKindName = (node: ts.Node): boolean => ts.isStringLiteralLike(node) && KIND_NAMES.has(node.text);

/** Each place a `.type` is compared with, or switched over, a provider kind's name: `line text`. */
function kindNamesIn(text: string, name = 'x.ts'): string[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node) => found.push(`${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${node.getText(source)}`);
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(node.operatorToken.kind)) {
      if ((isTypeRead(node.left) && isKindName(node.right)) || (isKindName(node.left) && isTypeRead(node.right))) report(node);
    }
    if (ts.isSwitchStatement(node) && isTypeRead(node.expression)) {
      for (const clause of node.caseBlock.clauses) if (ts.isCaseClause(clause) && isKindName(clause.expression)) report(clause.expression);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the pipeline names no provider kind', () => {
  it('finds a kind named in a comparison or a switch, and not the same word elsewhere', () => {
    const text = [
      "if (route.target.provider.type === 'openai') count();",
      "switch (p.type) { case 'anthropic': break; }",
      "const family = 'openai'; // 'openai' in a comment",
      "if (part.type === 'text') {}",
    ].join('\n');
    expect(kindNamesIn(text)).toEqual(["1 route.target.provider.type === 'openai'", "2 'anthropic'"]);
  });

  it('holds for every source file of src/pipeline/', () => {
    const found = sourceFiles(join(ROOT, 'src/pipeline')).flatMap((file) =>
      kindNamesIn(readFileSync(file, 'utf8'), file).map((hit) => `${relative(ROOT, file)}:${hit}`),
    );
    expect(found).toEqual([]);
  });
});
