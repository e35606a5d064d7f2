/**
 * Model-name globs: `*` matches any run of characters (possibly empty), `?` exactly one.
 * Shared by config validation, model routing and key-group allow-lists, so all three
 * agree on what a pattern means and which of several matching patterns wins.
 */

const WILDCARDS = /[*?]/;
// Characters other glob dialects give a meaning to; rejected so nobody expects `[ab]`, `{a,b}` or `**` to work.
const RESERVED = /[[\]{}]/;

/** True when the pattern contains `*` or `?` (otherwise it is an exact name). */
export function isGlob(pattern: string): boolean {
  return WILDCARDS.test(pattern);
}

/** Why `pattern` is not a usable model name or glob, or undefined when it is fine. */
export function globProblem(pattern: string): string | undefined {
  if (pattern === '') return 'name must not be empty';
  if (/\s/.test(pattern)) return `"${pattern}" contains whitespace`;
  if (RESERVED.test(pattern) || pattern.includes('**')) {
    return `bad glob "${pattern}": only * (any run of characters) and ? (one character) are supported; [ ] { } and ** are not`;
  }
  return undefined;
}

/** Compiles a pattern to an anchored RegExp. Exact names compile to themselves, escaped. */
export function compileGlob(pattern: string): RegExp {
  let source = '';
  for (const ch of pattern) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  }
  // `s`: a model name containing a newline is still one name; `u`: `?` is one code point, not one UTF-16 unit.
  return new RegExp(`^${source}$`, 'su');
}

/** Whether `name` matches `pattern` (an exact name or a glob). */
export function matchGlob(pattern: string, name: string): boolean {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    const re = isGlob(pattern) ? compileGlob(pattern) : undefined;
    matcher = re ? (n) => re.test(n) : (n) => n === pattern;
    matchers.set(pattern, matcher);
  }
  return matcher(name);
}

// Patterns come from the config, so this memo stays as small as the config; it
// keeps routing and allow-list checks from testing and compiling patterns on every request.
const matchers = new Map<string, (name: string) => boolean>();

function literalCount(pattern: string): number {
  let n = 0;
  for (const ch of pattern) if (ch !== '*' && ch !== '?') n++;
  return n;
}

function wildcardCount(pattern: string): number {
  return [...pattern].length - literalCount(pattern);
}

/**
 * Sort comparator, most specific first: exact names before globs; among globs, more literal
 * characters first, then fewer wildcards. Equal patterns compare 0, so a stable sort
 * (Array.prototype.sort is stable) keeps file order as the final tie-break.
 */
export function compareSpecificity(a: string, b: string): number {
  const aGlob = isGlob(a);
  const bGlob = isGlob(b);
  if (aGlob !== bGlob) return aGlob ? 1 : -1;
  if (!aGlob) return 0;
  return literalCount(b) - literalCount(a) || wildcardCount(a) - wildcardCount(b);
}
