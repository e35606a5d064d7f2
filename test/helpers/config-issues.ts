/** What `parseConfig` finds wrong with a config, as its issues; none for a config that loads. */
import { parseConfig } from '#src/config/parse.js';
import { ConfigError, type ConfigIssue } from '#src/errors.js';

export function configIssues(raw: unknown, env: Record<string, string | undefined> = {}): readonly ConfigIssue[] {
  try {
    parseConfig(raw, { env });
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  return [];
}
