/**
 * What changed between the body a client sent and the body the provider received:
 * fields dropped, added (defaults), changed (the model name), and moved or renamed
 * (`max_tokens` → `max_completion_tokens`, `system` → `messages[0].content`,
 * `tools[0].input_schema` → `tools[0].function.parameters`).
 *
 * Objects are compared key by key; arrays are aligned on equal elements first (so a
 * system message put in front does not make every later message "changed"), and the
 * elements left between matches are compared pairwise. A value that disappears from
 * one place and appears, deep-equal, in another is a move; it may land inside a new
 * structure (an added object) or come out of a dropped one (`partial`).
 */
import { createHasher, type Hasher } from './value-hash.js';

export type Path = readonly (string | number)[];

export type ChangeKind = 'removed' | 'added' | 'changed' | 'moved';

export interface Change {
  readonly kind: ChangeKind;
  /** Where the value is in the client body (removed, changed, moved). */
  readonly from?: Path;
  /** Where the value is in the upstream body (added, changed, moved). */
  readonly to?: Path;
  /** The client's value (removed, changed, moved). */
  readonly before?: unknown;
  /** The upstream value (added, changed). */
  readonly after?: unknown;
  /** Moved: a part of a value that was otherwise dropped. Removed: some parts of it were moved. */
  readonly partial?: true;
  /** Added: how many moved values ended up inside this new structure. */
  readonly receives?: number;
}

export interface BodyDiff {
  readonly changes: readonly Change[];
  /** Changes left out beyond the limit. */
  readonly omitted: number;
}

export interface DiffOptions {
  /** At most this many changes are returned (default 1000). */
  readonly limit?: number;
}

/** Above this many cells, arrays are compared by position instead of aligned. */
const ALIGN_CELLS = 250_000;
/** How many subtrees of added and removed values are indexed to find moves. */
const INDEX_NODES = 50_000;
/** Strings shorter than this, numbers and booleans count as moved only between siblings (a rename). */
const DISTINCT_STRING = 4;
/**
 * Comparisons spent looking for moves. Two bodies with thousands of equal subtrees (the same schema
 * in every tool) would otherwise compare each removed value with every place it could have gone and
 * every place already taken; past this, what is left is shown as removed and added.
 */
const MOVE_STEPS = 2_000_000;

interface Removed {
  readonly from: Path;
  readonly value: unknown;
  partial?: true;
}
interface Added {
  readonly to: Path;
  readonly value: unknown;
  receives: number;
  movedWhole?: true;
}
interface Found {
  readonly removed: Removed[];
  readonly added: Added[];
  readonly changed: Change[];
}

export function diffBodies(client: unknown, upstream: unknown, options: DiffOptions = {}): BodyDiff {
  const hash = createHasher();
  const found: Found = { removed: [], added: [], changed: [] };
  walk(client, upstream, [], [], found, hash);
  const moved = findMoves(found, hash);

  const changes: Change[] = [
    ...moved,
    ...found.removed.map((r): Change => ({ kind: 'removed', from: r.from, before: r.value, ...(r.partial ? { partial: true as const } : {}) })),
    ...found.changed,
    ...found.added
      .filter((a) => !a.movedWhole)
      .map((a): Change => ({ kind: 'added', to: a.to, after: a.value, ...(a.receives > 0 ? { receives: a.receives } : {}) })),
  ];
  const limit = options.limit ?? 1000;
  return { changes: changes.slice(0, limit), omitted: Math.max(0, changes.length - limit) };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function walk(a: unknown, b: unknown, pa: Path, pb: Path, out: Found, hash: Hasher): void {
  if (hash(a) === hash(b)) return;
  if (isObject(a) && isObject(b)) {
    for (const k of Object.keys(a)) {
      if (Object.hasOwn(b, k)) walk(a[k], b[k], [...pa, k], [...pb, k], out, hash);
      else out.removed.push({ from: [...pa, k], value: a[k] });
    }
    for (const k of Object.keys(b)) {
      if (!Object.hasOwn(a, k)) out.added.push({ to: [...pb, k], value: b[k], receives: 0 });
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    let i = 0;
    let j = 0;
    for (const [mi, mj] of [...alignArrays(a.map(hash), b.map(hash)), [a.length, b.length] as const]) {
      walkGap(a, b, i, mi, j, mj, pa, pb, out, hash);
      i = mi + 1;
      j = mj + 1;
    }
    return;
  }
  out.changed.push({ kind: 'changed', from: pa, to: pb, before: a, after: b });
}

/**
 * The elements between two equal ones: those with the same identity (a tool's name, a
 * call's id) are compared with each other, those without one pairwise in order; an
 * element whose identity has no partner is removed or added, never compared with a stranger.
 */
function walkGap(a: readonly unknown[], b: readonly unknown[], i0: number, i1: number, j0: number, j1: number, pa: Path, pb: Path, out: Found, hash: Hasher): void {
  const idsA = a.slice(i0, i1).map(identity);
  const idsB = b.slice(j0, j1).map(identity);
  // Anonymous elements get keys nothing else has, so only identities align.
  const keysA = idsA.map((id, k) => id ?? `\0a${k}`);
  const keysB = idsB.map((id, k) => id ?? `\0b${k}`);
  let i = i0;
  let j = j0;
  for (const [ki, kj] of [...alignArrays(keysA, keysB), [i1 - i0, j1 - j0] as const]) {
    const mi = i0 + ki;
    const mj = j0 + kj;
    const anonA: number[] = [];
    const anonB: number[] = [];
    for (let k = i; k < mi; k++) {
      if (idsA[k - i0] === undefined) anonA.push(k);
      else out.removed.push({ from: [...pa, k], value: a[k] });
    }
    for (let k = j; k < mj; k++) {
      if (idsB[k - j0] === undefined) anonB.push(k);
      else out.added.push({ to: [...pb, k], value: b[k], receives: 0 });
    }
    const common = Math.min(anonA.length, anonB.length);
    for (let k = 0; k < common; k++) walk(a[anonA[k]!], b[anonB[k]!], [...pa, anonA[k]!], [...pb, anonB[k]!], out, hash);
    for (const k of anonA.slice(common)) out.removed.push({ from: [...pa, k], value: a[k] });
    for (const k of anonB.slice(common)) out.added.push({ to: [...pb, k], value: b[k], receives: 0 });
    if (mi < i1 && mj < j1) walk(a[mi], b[mj], [...pa, mi], [...pb, mj], out, hash);
    i = mi + 1;
    j = mj + 1;
  }
}

/** What names an element in every protocol: a tool's name (top level, or under `function`/`custom`), else a call's or item's id. */
function identity(v: unknown): string | undefined {
  if (!isObject(v)) return undefined;
  for (const holder of [v, v.function, v.custom]) {
    if (isObject(holder) && typeof holder.name === 'string') return `name:${holder.name}`;
  }
  // A Responses call's `call_id` is the `id` of the Messages tool_use and of the Chat tool call it becomes.
  for (const k of ['call_id', 'tool_call_id', 'tool_use_id', 'id']) {
    if (typeof v[k] === 'string') return `id:${v[k] as string}`;
  }
  return undefined;
}

/** Index pairs of equal elements, in order: common prefix and suffix, and a longest common subsequence between. */
export function alignArrays(a: readonly string[], b: readonly string[]): [number, number][] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const pairs: [number, number][] = [];
  for (let k = 0; k < start; k++) pairs.push([k, k]);
  const n = endA - start;
  const m = endB - start;
  if (n > 0 && m > 0 && n * m <= ALIGN_CELLS) {
    // lengths[i][j]: LCS of a[start+i..endA) and b[start+j..endB), in one flat array.
    const lengths = new Uint32Array((n + 1) * (m + 1));
    const at = (i: number, j: number) => lengths[i * (m + 1) + j] ?? 0;
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lengths[i * (m + 1) + j] = a[start + i] === b[start + j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (a[start + i] === b[start + j]) {
        pairs.push([start + i, start + j]);
        i++;
        j++;
      } else if (at(i + 1, j) >= at(i, j + 1)) i++;
      else j++;
    }
  }
  for (let k = 0; k < a.length - endA; k++) pairs.push([endA + k, endB + k]);
  return pairs;
}

interface Target {
  readonly path: Path;
  readonly entry: Added;
}

/** Every subtree of the added values, by hash, so a removed value can be found wherever it landed. */
function indexAdded(added: readonly Added[], hash: Hasher): Map<string, Target[]> {
  const index = new Map<string, Target[]>();
  let budget = INDEX_NODES;
  const visit = (value: unknown, path: Path, entry: Added) => {
    if (budget-- <= 0) return;
    const h = hash(value);
    let list = index.get(h);
    if (!list) {
      list = [];
      index.set(h, list);
    }
    list.push({ path, entry });
    if (Array.isArray(value)) for (const [i, v] of value.entries()) visit(v, [...path, i], entry);
    else if (isObject(value)) for (const [k, v] of Object.entries(value)) visit(v, [...path, k], entry);
  };
  for (const a of added) visit(a.value, a.to, a);
  return index;
}

const distinctive = (v: unknown): boolean =>
  typeof v === 'string' ? v.length >= DISTINCT_STRING : Array.isArray(v) ? v.length > 0 : isObject(v) ? Object.keys(v).length > 0 : false;

const sameParent = (a: Path, b: Path) => a.length === b.length && a.slice(0, -1).every((s, i) => s === b[i]);

function commonPrefix(a: Path, b: Path): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

const within = (inner: Path, outer: Path) => inner.length >= outer.length && outer.every((s, i) => s === inner[i]);

function findMoves(found: Found, hash: Hasher): Change[] {
  const index = indexAdded(found.added, hash);
  const claimed: Path[] = [];
  const moves: Change[] = [];
  let steps = MOVE_STEPS;

  const claim = (from: Path, value: unknown): Target | undefined => {
    if (steps <= 0) return undefined;
    const candidates = index.get(hash(value));
    if (!candidates) return undefined;
    let best: Target | undefined;
    let bestScore = -Infinity;
    for (const t of candidates) {
      steps -= 1 + claimed.length;
      if (steps <= 0) break;
      if (!distinctive(value) && !sameParent(from, t.path)) continue;
      if (claimed.some((c) => within(t.path, c) || within(c, t.path))) continue;
      const score = commonPrefix(from, t.path) * 1000 - t.path.length;
      if (score > bestScore) {
        best = t;
        bestScore = score;
      }
    }
    if (best) {
      claimed.push(best.path);
      if (best.path.length === best.entry.to.length) best.entry.movedWhole = true;
      else best.entry.receives++;
    }
    return best;
  };

  // Whole removed values first: a rename or a move of a field as it was.
  const rest: Removed[] = [];
  for (const r of found.removed) {
    const t = claim(r.from, r.value);
    if (t) moves.push({ kind: 'moved', from: r.from, to: t.path, before: r.value });
    else rest.push(r);
  }
  // Then parts of what is left: a dropped wrapper whose contents went elsewhere (`text.format.schema`).
  // Bigger parts first, so a whole schema moves as one rather than as its pieces.
  let budget = INDEX_NODES;
  for (const r of rest) {
    const parts: { path: Path; value: unknown; size: number; order: number }[] = [];
    let order = 0;
    const collect = (value: unknown, path: Path): number => {
      if (budget-- <= 0) return 1;
      const at = order++;
      let size = 1;
      if (Array.isArray(value)) for (const [i, v] of value.entries()) size += collect(v, [...path, i]);
      else if (isObject(value)) for (const [k, v] of Object.entries(value)) size += collect(v, [...path, k]);
      if (path.length > r.from.length && distinctive(value)) parts.push({ path, value, size, order: at });
      return size;
    };
    collect(r.value, r.from);
    parts.sort((x, y) => y.size - x.size);
    const taken: Path[] = [];
    const found: { order: number; move: Change }[] = [];
    for (const part of parts) {
      steps -= 1 + taken.length;
      if (steps <= 0) break;
      if (taken.some((t) => within(part.path, t))) continue;
      const t = claim(part.path, part.value);
      if (!t) continue;
      taken.push(part.path);
      found.push({ order: part.order, move: { kind: 'moved', from: part.path, to: t.path, before: part.value, partial: true } });
      r.partial = true;
    }
    // Listed in the order they appear in the body.
    for (const f of found.sort((x, y) => x.order - y.order)) moves.push(f.move);
  }
  // Not `splice(0, n, ...rest)`: spreading a hundred thousand arguments overflows the stack.
  found.removed.length = 0;
  for (const r of rest) found.removed.push(r);
  return moves;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `messages[0].content`, `tools[2]["x-y"]`; the root is `(body)`. */
export function formatPath(path: Path): string {
  if (path.length === 0) return '(body)';
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (IDENTIFIER.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}
