/**
 * raw value → `Config`, synchronously: env references, schema, cross-field rules, normalisation.
 * Every problem found is thrown together in one `ConfigError`.
 */
import { ConfigError, type ConfigIssue } from '../errors.js';
import { isObject } from '../protocols/shallow.js';
import { knownKind } from '../providers/kinds.js';
import { interpolateEnv, type Env } from './env.js';
import { normalizeConfig } from './normalize.js';
import { checkRules } from './rules.js';
import { writtenConfigSchema } from './schema.js';
import type { Config } from './types.js';
import { configErrorMap, toConfigIssues } from './zod-issues.js';

export interface ParseConfigOptions {
  /** Where `${NAME}` references are looked up. Default: `process.env`. */
  readonly env?: Env | undefined;
  /** Names the config in error messages, e.g. a file path. */
  readonly source?: string | undefined;
}

export function parseConfig(raw: unknown, options: ParseConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const { value, issues: envIssues } = interpolateEnv(raw, env);
  fillFromEnv(value, env);
  const parsed = writtenConfigSchema.safeParse(value, { error: configErrorMap, reportInput: true });
  const issues: ConfigIssue[] = parsed.success
    ? checkRules(parsed.data)
    : [...toConfigIssues(parsed.error.issues, writtenConfigSchema), ...rulesWithout(value, parsed.error.issues)];

  // An unset variable leaves its `${NAME}` text in place; a second complaint about that text is noise.
  const envPaths = new Set(envIssues.map((issue) => issue.path));
  const all = [...envIssues, ...issues.filter((issue) => !envPaths.has(issue.path))];
  if (all.length > 0 || !parsed.success) throw new ConfigError(all, options.source);
  return normalizeConfig(parsed.data);
}

/**
 * The cross-field rules' findings on a config whose shape is wrong, so that one round reports every
 * problem: each entry (or top-level field) the schema refused is left out, the rest checked again,
 * and the rules run on it if it passes. A finding that names a left-out entry (a model's provider
 * that was refused) is dropped: the schema's own issue already covers it.
 */
function rulesWithout(value: unknown, refused: readonly { readonly path: readonly PropertyKey[] }[]): ConfigIssue[] {
  if (!isObject(value)) return [];
  const pruned: Record<string, unknown> = { ...value };
  const left: string[] = [];
  for (const { path } of refused) {
    const [section, entry] = path;
    if (typeof section !== 'string') return [];
    const inner = pruned[section];
    if (path.length >= 2 && (typeof entry === 'string' || typeof entry === 'number') && isObject(inner) && !Array.isArray(inner)) {
      const copy: Record<string, unknown> = { ...inner };
      delete copy[entry];
      pruned[section] = copy;
      left.push(String(entry));
    } else {
      delete pruned[section];
    }
  }
  const again = writtenConfigSchema.safeParse(pruned);
  if (!again.success) return [];
  return checkRules(again.data).filter((issue) => !left.some((name) => issue.message.includes(`"${name}"`)));
}

/**
 * Fields a provider kind takes from the environment when the entry leaves them out (`bedrock`'s
 * `region` from `AWS_REGION`), as that vendor's own tools do; the entry as written wins.
 */
function fillFromEnv(value: unknown, env: Env): void {
  const providers = isObject(value) && isObject(value.providers) ? value.providers : undefined;
  if (!providers) return;
  for (const entry of Object.values(providers)) {
    if (!isObject(entry) || typeof entry.type !== 'string') continue;
    const fromEnv = knownKind(entry.type)?.fromEnv ?? {};
    for (const [field, names] of Object.entries(fromEnv)) {
      if (entry[field] !== undefined) continue;
      const set = (names ?? []).map((name) => env[name]).find((v) => v !== undefined && v !== '');
      if (set !== undefined) entry[field] = set;
    }
  }
}
