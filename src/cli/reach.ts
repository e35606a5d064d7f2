/**
 * Which configured models a key group can reach, for `check` and `models`. A group's
 * patterns and the config's model keys are both globs, so "may this group call that
 * glob model" means "is there a name both patterns match": decided exactly by walking
 * the two patterns side by side (a product of their automata), not by guessing names.
 */
import type { Config, KeyGroupConfig, ModelConfig } from '../config/types.js';
import { isGlob, matchGlob } from '../config/glob.js';
import { findModel } from '../routing/resolve-model.js';

/** True when some model name matches both `a` and `b` (each an exact name or a `*`/`?` glob). */
export function globsIntersect(a: string, b: string): boolean {
  const x = [...a];
  const y = [...b];
  // State (i, j): the first i characters of a and j of b are used up by the same text so far.
  const seen = new Set<string>();
  const stack: [number, number][] = [[0, 0]];
  while (stack.length > 0) {
    const [i, j] = stack.pop()!;
    const id = `${i},${j}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if (i === x.length && j === y.length) return true;
    const p = x[i];
    const q = y[j];
    // A `*` may match nothing.
    if (p === '*') stack.push([i + 1, j]);
    if (q === '*') stack.push([i, j + 1]);
    if (p === undefined || q === undefined) continue;
    // Both consume one character: possible unless they are two different literals.
    const literal = (ch: string) => ch !== '*' && ch !== '?';
    if (literal(p) && literal(q) && p !== q) continue;
    stack.push([p === '*' ? i : i + 1, q === '*' ? j : j + 1]);
  }
  return false;
}

/** How a group reaches one model entry. */
export interface Reach {
  readonly model: ModelConfig;
  /**
   * The names the group may send that this entry serves: the entry itself when a group
   * pattern covers it entirely, else the group's patterns that overlap it.
   */
  readonly names: readonly string[];
  /** True when the group may call every name the entry serves. */
  readonly whole: boolean;
}

/** A group pattern covers a model entry when it matches every name the entry matches (checked for the common cases). */
function covers(groupPattern: string, model: ModelConfig): boolean {
  if (!model.isGlob) return matchGlob(groupPattern, model.pattern);
  return groupPattern === '*' || groupPattern === model.pattern;
}

/**
 * Every model entry the group can reach, in config order (exact names, then globs most
 * specific first). A group's exact name is listed under the entry that actually serves it,
 * since a more specific entry may take a name a broader glob would also match.
 */
export function reachableModels(config: Config, group: KeyGroupConfig): Reach[] {
  const out: Reach[] = [];
  for (const model of [...config.models.values(), ...config.modelGlobs]) {
    if (group.models.some((g) => covers(g, model))) {
      out.push({ model, names: [model.pattern], whole: true });
      continue;
    }
    if (!model.isGlob) continue;
    const names = group.models.filter((g) =>
      isGlob(g) ? globsIntersect(g, model.pattern) : findModel(config, g) === model,
    );
    if (names.length > 0) out.push({ model, names, whole: false });
  }
  return out;
}

/** The key groups that can reach a model entry at all. */
export function groupsReaching(config: Config, model: ModelConfig): KeyGroupConfig[] {
  return [...config.keyGroups.values()].filter((g) => reachableModels(config, g).some((r) => r.model === model));
}
