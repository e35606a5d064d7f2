import { describe, expect, it } from 'vitest';
import { compareSpecificity, compileGlob, globProblem, isGlob, matchGlob } from './glob.js';

describe('matchGlob', () => {
  it.each([
    ['claude-*', 'claude-sonnet-4-5', true],
    ['claude-*', 'claude-', true],
    ['claude-*', 'claude', false],
    ['claude-*', 'xclaude-opus', false],
    ['*', '', true],
    ['*', 'anything at all', true],
    ['gpt-?', 'gpt-5', true],
    ['gpt-?', 'gpt-', false],
    ['gpt-?', 'gpt-55', false],
    ['o?-*', 'o3-mini', true],
    ['o?-*', 'o10-mini', false],
    ['*-mini', 'o4-mini', true],
    ['a*b*c', 'aXXbYYc', true],
    ['a*b*c', 'aXXcYYb', false],
    // Regex metacharacters in names are literal.
    ['gpt-4.1', 'gpt-4x1', false],
    ['gpt-4.1', 'gpt-4.1', true],
    ['qwen2.5-coder:7b', 'qwen2.5-coder:7b', true],
    ['a+b(c)|d$', 'a+b(c)|d$', true],
    ['deepseek/*', 'deepseek/r1', true],
    ['?', 'é', true],
  ])('%s vs %s → %s', (pattern, name, expected) => {
    expect(matchGlob(pattern, name)).toBe(expected);
  });

  it('compiles to an anchored RegExp', () => {
    const re = compileGlob('gpt-*');
    expect(re.test('gpt-4o')).toBe(true);
    expect(re.test('my-gpt-4o')).toBe(false);
  });
});

describe('isGlob / globProblem', () => {
  it.each([
    ['gpt-4.1', false],
    ['gpt-*', true],
    ['o?', true],
  ])('isGlob(%s) = %s', (pattern, expected) => {
    expect(isGlob(pattern)).toBe(expected);
  });

  it.each([
    ['', 'name must not be empty'],
    ['gpt 4', '"gpt 4" contains whitespace'],
    ['gpt-[45]', 'bad glob'],
    ['gpt-{4,5}', 'bad glob'],
    ['gpt-]', 'bad glob'],
    ['claude/**', 'bad glob'],
  ])('globProblem(%j) mentions %j', (pattern, fragment) => {
    expect(globProblem(pattern)).toContain(fragment);
  });

  it.each(['*', 'claude-*', 'gpt-?', 'a*b*c', 'qwen2.5-coder:7b'])('accepts %s', (pattern) => {
    expect(globProblem(pattern)).toBeUndefined();
  });
});

describe('compareSpecificity', () => {
  it('orders exact names first, then more literal characters, then fewer wildcards, then file order', () => {
    const patterns = ['*', 'c*', 'claude-*', 'claude-?-*', 'claude-3*', 'exact', 'claude-3?', 'x*', '*x'];
    const sorted = [...patterns].sort(compareSpecificity);
    expect(sorted).toEqual([
      'exact',
      // Both have 8 literals and 1 wildcard: file order decides.
      'claude-3*',
      'claude-3?',
      'claude-?-*',
      'claude-*',
      'c*',
      'x*',
      '*x',
      '*',
    ]);
  });

  it.each([
    ['exact', 'a*', -1],
    ['a*', 'exact', 1],
    ['abc*', 'ab*', -1],
    ['ab?', 'ab*', 0],
    ['ab*', 'a*b*', -1],
    ['one', 'two', 0],
  ])('compare(%s, %s) has sign %i', (a, b, sign) => {
    expect(Math.sign(compareSpecificity(a, b))).toBe(sign);
  });
});
