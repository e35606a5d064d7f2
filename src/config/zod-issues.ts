/**
 * zod 4 issues → `ConfigIssue`s people can act on: messages that say what is allowed and
 * what was found, one issue per unknown field (with a "did you mean"), and union failures
 * reported from the branch the input was evidently aiming at.
 */
import type { z } from './zod.js';
import type { ConfigIssue } from '../errors.js';
import { formatPath } from './path.js';

type RawIssue = z.core.$ZodRawIssue;
type Issue = z.core.$ZodIssue;
type Schema = z.core.$ZodType;

/** A parse-level error map. Messages given on a schema (`.min(1, '...')`) still take precedence. */
export function configErrorMap(iss: RawIssue): string | undefined {
  const input = iss.input;
  switch (iss.code) {
    case 'invalid_type':
      if (input === undefined) return 'required';
      if (iss.expected === 'int' && typeof input === 'number') return `must be an integer (got ${input})`;
      return `expected ${article(typeName(iss.expected))}, got ${describe(input)}`;
    case 'invalid_value':
      return oneOf(iss.values, input);
    case 'too_small':
      return bound(iss.origin, 'small', Number(iss.minimum), iss.inclusive ?? true);
    case 'too_big':
      return bound(iss.origin, 'big', Number(iss.maximum), iss.inclusive ?? true);
    case 'invalid_format':
      if (iss.format === 'url') return `must be an absolute http(s) URL (got ${describe(input)})`;
      return `invalid ${iss.format} (got ${describe(input)})`;
    case 'invalid_key':
      return iss.issues[0]?.message ?? 'invalid name';
    case 'invalid_union':
      // A discriminated union (a provider's `type`) whose discriminator matches no option: the options are the allowed values.
      // The issue's input is the whole entry; what was found is its discriminator field.
      if (iss.note === 'No matching discriminator' && Array.isArray(iss.options)) {
        const key = typeof iss.discriminator === 'string' ? iss.discriminator : undefined;
        const found = key !== undefined && typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[key] : undefined;
        return oneOf(iss.options, found);
      }
      return undefined;
    default:
      return undefined;
  }
}

function oneOf(values: readonly unknown[], input: unknown): string {
  const list = values.map((v) => JSON.stringify(v)).join(', ');
  return input === undefined ? `required: one of ${list}` : `must be one of ${list} (got ${describe(input)})`;
}

function bound(origin: string, side: 'small' | 'big', limit: number, inclusive: boolean): string {
  if (origin === 'array' || origin === 'set') {
    if (side === 'small' && limit === 1) return 'must not be empty';
    return side === 'small' ? `must have at least ${limit} items` : `must have at most ${limit} items`;
  }
  if (origin === 'string') {
    if (side === 'small' && limit === 1) return 'must not be empty';
    return side === 'small' ? `must be at least ${limit} characters` : `must be at most ${limit} characters`;
  }
  if (side === 'small') return inclusive ? `must be at least ${limit}` : `must be greater than ${limit}`;
  return inclusive ? `must be at most ${limit}` : `must be less than ${limit}`;
}

/** Flattens zod issues into config issues with formatted paths. `schema` is walked for field-name suggestions. */
export function toConfigIssues(issues: readonly Issue[], schema: Schema): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const visit = (issue: Issue, prefix: readonly PropertyKey[]): void => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      const known = fieldsAt(schema, path, issue.input);
      for (const key of issue.keys) {
        const hint = suggest(key, known);
        out.push({ path: formatPath([...path, key]), message: `unknown field${hint ? ` (did you mean "${hint}"?)` : ''}` });
      }
      return;
    }
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const branch = issue.errors.find((errors) => !errors.every(isRootTypeMismatch));
      if (branch && typeof issue.input === 'object' && issue.input !== null) {
        for (const inner of branch) visit(inner, path);
        return;
      }
      const expected = issue.errors.flat().filter(isRootTypeMismatch).map((e) => article(typeName(e.expected)));
      out.push({ path: formatPath(path), message: `expected ${unique(expected).join(' or ')}, got ${describe(issue.input)}` });
      return;
    }
    out.push({ path: formatPath(path), message: issue.message });
  };
  for (const issue of issues) visit(issue, []);
  return out;
}

function isRootTypeMismatch(issue: Issue): issue is z.core.$ZodIssueInvalidType {
  return issue.code === 'invalid_type' && issue.path.length === 0;
}

/**
 * The field names an object schema at `path` accepts: several for a union of objects, those of
 * the options `input` fits by its literal fields (a provider's `type`) when one does.
 */
function fieldsAt(schema: Schema, path: readonly PropertyKey[], input: unknown): string[] {
  let current: Schema[] = [schema];
  for (const segment of path) {
    current = current.flatMap(unwrap).flatMap((s) => child(s, segment));
  }
  const objects = current.flatMap(unwrap).filter((s) => s._zod.def.type === 'object');
  const fitting = objects.filter((s) => fitsLiterals(s, input));
  return (fitting.length > 0 ? fitting : objects).flatMap((s) => Object.keys(shapeOf(s)));
}

/** Whether `input` has each literal field of the object schema at one of its values. */
function fitsLiterals(schema: Schema, input: unknown): boolean {
  if (typeof input !== 'object' || input === null) return false;
  return Object.entries(shapeOf(schema)).every(([name, field]) => {
    const def = field._zod.def as unknown as { type: string; values?: unknown[] };
    return def.type !== 'literal' || (def.values ?? []).includes((input as Record<string, unknown>)[name]);
  });
}

function unwrap(schema: Schema): Schema[] {
  const def = schema._zod.def as unknown as { type: string; innerType?: Schema; in?: Schema; options?: Schema[] };
  if (def.innerType) return unwrap(def.innerType);
  if (def.type === 'pipe' && def.in) return unwrap(def.in);
  if (def.type === 'union' && def.options) return def.options.flatMap(unwrap);
  return [schema];
}

function child(schema: Schema, segment: PropertyKey): Schema[] {
  const def = schema._zod.def as unknown as { type: string; valueType?: Schema; element?: Schema };
  if (def.type === 'object' && typeof segment === 'string') {
    const field = shapeOf(schema)[segment];
    return field ? [field] : [];
  }
  if (def.type === 'record' && def.valueType) return [def.valueType];
  if (def.type === 'array' && def.element) return [def.element];
  return [];
}

function shapeOf(schema: Schema): Record<string, Schema> {
  return (schema._zod.def as unknown as { shape: Record<string, Schema> }).shape;
}

/** The closest known name within a small edit distance, for typos like `apiKy` or `maxbodybytes`. */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = candidate.toLowerCase() === word.toLowerCase() ? 0 : distance(word, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

// Levenshtein distance, two-row form.
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return article(typeof value);
}

// A record is an object to whoever writes the file.
function typeName(expected: string): string {
  return expected === 'record' ? 'object' : expected;
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
