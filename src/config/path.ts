/**
 * Issue paths as people read them: `models.qwen-coder.provider`, `keyGroups.dev.keys[1]`.
 * Dots stay plain even inside names (`models.gpt-4.1.features[0]` reads fine); only names that
 * would be unreadable bare (empty, whitespace, brackets, quotes) are quoted as `["..."]`.
 */
export type PathSegment = string | number;

const BARE = /^[^\s[\]"]+$/;

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'symbol') out += `[${String(segment)}]`;
    else if (!BARE.test(segment)) out += `[${JSON.stringify(segment)}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}
