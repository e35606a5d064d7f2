/**
 * `${NAME}` references in config string values, resolved from an injected environment, with the
 * shell's defaults: `${NAME:-text}` when NAME is unset or empty, `${NAME-text}` when it is unset.
 * Runs on the raw tree before schema validation, so a secret can sit in any string field.
 */
import type { ConfigIssue } from '../errors.js';
import { formatPath, type PathSegment } from './path.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface InterpolateResult {
  readonly value: unknown;
  readonly issues: ConfigIssue[];
}

// `$${...}` is the escape for a literal `${...}`; the optional second `$` tells the two apart.
const REFERENCE = /\$(\$)?\{([^}]*)\}/g;
/** What may stand between the braces: a name, then optionally `:-` or `-` and a default (no `}`). */
const NAME = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)(.*))?$/s;

/**
 * A reference as a JSON Schema (ECMA-262) pattern: a string holding one is checked only once it is
 * resolved, so a field's own pattern gives way to it. Not the `$${…}` escape.
 */
export const ENV_REFERENCE_PATTERN = '(^|[^$])\\$\\{[A-Za-z_][A-Za-z0-9_]*(:?-[^}]*)?\\}';

/**
 * Returns a copy of `raw` with every `${NAME}` in string values (object keys are left alone)
 * replaced. An unset variable is an issue naming it and the path; the string is then kept
 * as written so later checks see a string rather than a hole.
 */
export function interpolateEnv(raw: unknown, env: Env): InterpolateResult {
  const issues: ConfigIssue[] = [];

  const visit = (value: unknown, path: PathSegment[]): unknown => {
    if (typeof value === 'string') return interpolateString(value, path);
    if (Array.isArray(value)) return value.map((item, i) => visit(item, [...path, i]));
    if (isPlainObject(value)) {
      // fromEntries defines own properties, so a `__proto__` key stays data rather than a prototype.
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, visit(item, [...path, key])]));
    }
    return value;
  };

  const interpolateString = (text: string, path: PathSegment[]): string => {
    const missing: string[] = [];
    const result = text.replace(REFERENCE, (match, escaped: string | undefined, inner: string) => {
      if (escaped) return match.slice(1);
      const parts = NAME.exec(inner);
      if (!parts) {
        issues.push({
          path: formatPath(path),
          message: `invalid environment variable reference "${match}" (names are letters, digits and _, optionally followed by :-default; write $\${...} for a literal \${...})`,
        });
        return match;
      }
      const [, name, operator, fallback] = parts as unknown as [string, string, string | undefined, string | undefined];
      const resolved = env[name];
      if (operator === ':-' && (resolved === undefined || resolved === '')) return fallback!;
      if (operator === '-' && resolved === undefined) return fallback!;
      if (resolved === undefined) {
        missing.push(name);
        return match;
      }
      return resolved;
    });
    for (const name of missing) {
      issues.push({ path: formatPath(path), message: `environment variable ${name} is not set` });
    }
    // Keep the text as written when something is missing, rather than a half-resolved secret.
    return missing.length > 0 ? text : result;
  };

  return { value: visit(raw, []), issues };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
