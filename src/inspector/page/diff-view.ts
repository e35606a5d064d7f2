/**
 * What translation changed, drawn two ways: marks on the two body trees, and a list
 * grouped by kind (dropped, moved or renamed, changed, added, tools) with the
 * gateway's own warnings.
 */
import { formatPath, type BodyDiff, type Change } from '../common/diff.js';
import type { ToolChanges } from '../common/tools.js';
import { h, type Child } from './dom.js';
import { preview } from './format.js';
import type { Mark } from './json-tree.js';

export interface DiffMarks {
  readonly client: Map<string, Mark>;
  readonly upstream: Map<string, Mark>;
}

export function diffMarks(diff: BodyDiff): DiffMarks {
  const client = new Map<string, Mark>();
  const upstream = new Map<string, Mark>();
  const put = (map: Map<string, Mark>, mark: Mark) => map.set(formatPath(mark.path), mark);
  for (const c of diff.changes) {
    if (c.kind === 'removed' && c.from) put(client, { kind: 'removed', label: c.partial ? 'dropped (parts moved)' : 'dropped', path: c.from });
    if (c.kind === 'added' && c.to) put(upstream, { kind: 'added', label: c.receives ? 'new structure' : 'added', path: c.to });
    if (c.kind === 'changed' && c.from && c.to) {
      put(client, { kind: 'changed', label: 'changed', path: c.from });
      put(upstream, { kind: 'changed', label: `was ${preview(c.before, 40)}`, path: c.to });
    }
    if (c.kind === 'moved' && c.from && c.to) {
      put(client, { kind: 'moved', label: `→ ${formatPath(c.to)}`, path: c.from });
      put(upstream, { kind: 'moved-in', label: `← ${formatPath(c.from)}`, path: c.to });
    }
  }
  return { client, upstream };
}

/** Items shown per group before "show all". */
const GROUP_LIMIT = 40;

function group(title: string, kind: string, items: readonly Child[]): HTMLElement | null {
  if (items.length === 0) return null;
  const list = h('ul', { class: 'changes' });
  const draw = (all: boolean) => {
    list.replaceChildren(...(all ? items : items.slice(0, GROUP_LIMIT)).map((i) => h('li', null, i)));
    if (!all && items.length > GROUP_LIMIT) {
      list.appendChild(h('li', null, h('button', { class: 'link more', type: 'button', onclick: () => draw(true) }, `show all ${items.length}`)));
    }
  };
  draw(false);
  return h('div', { class: `change-group change-${kind}`, 'data-group': kind }, h('h4', null, `${title} (${items.length})`), list);
}

const code = (text: string) => h('code', null, text);

/** `tools[3].strict` → `tools[*].strict`. */
const pattern = (path: readonly (string | number)[]) => formatPath(path.map((seg) => (typeof seg === 'number' ? -1 : seg))).replaceAll('[-1]', '[*]');
/** This many changes of one pattern (a field dropped from every tool) read as one line. */
const COLLAPSE = 3;

/**
 * The changes as list items, those repeated over the elements of an array (`tools[*].strict`
 * dropped from every tool) collapsed into one line with a count.
 */
function items(changes: readonly Change[], key: (c: Change) => string, one: (c: Change) => Child, many: (first: Change, n: number) => Child): Child[] {
  const byKey = new Map<string, Change[]>();
  for (const c of changes) {
    const k = key(c);
    const list = byKey.get(k);
    if (list) list.push(c);
    else byKey.set(k, [c]);
  }
  const out: Child[] = [];
  for (const list of byKey.values()) {
    if (list.length >= COLLAPSE) out.push(many(list[0]!, list.length));
    else out.push(...list.map(one));
  }
  return out;
}

const times = (n: number) => h('span', { class: 'times' }, ` ×${n}`);

export function changeList(diff: BodyDiff | undefined, tools: ToolChanges | undefined, warnings: readonly string[]): HTMLElement {
  const by = (kind: Change['kind']) => diff?.changes.filter((c) => c.kind === kind) ?? [];
  const from = (c: Change) => c.from ?? [];
  const to = (c: Change) => c.to ?? [];
  const groups = [
    group('Warnings from the gateway', 'warnings', [...new Set(warnings)]),
    group(
      'Dropped',
      'removed',
      items(
        by('removed'),
        (c) => pattern(from(c)),
        (c) => [code(formatPath(from(c))), ' ', h('span', { class: 'muted' }, preview(c.before, 80)), c.partial ? h('span', { class: 'muted' }, ' (parts moved)') : null],
        (c, n) => [code(pattern(from(c))), times(n), ' ', h('span', { class: 'muted' }, `e.g. ${preview(c.before, 60)}`)],
      ),
    ),
    group(
      'Moved or renamed',
      'moved',
      items(
        by('moved'),
        (c) => `${pattern(from(c))}→${pattern(to(c))}`,
        (c) => [code(formatPath(from(c))), ' → ', code(formatPath(to(c)))],
        (c, n) => [code(pattern(from(c))), ' → ', code(pattern(to(c))), times(n)],
      ),
    ),
    group(
      'Changed',
      'changed',
      items(
        by('changed'),
        (c) => pattern(to(c)),
        (c) => [code(formatPath(to(c))), ' ', h('span', { class: 'muted' }, preview(c.before, 60)), ' → ', preview(c.after, 60)],
        (c, n) => [code(pattern(to(c))), times(n), ' ', h('span', { class: 'muted' }, `e.g. ${preview(c.before, 40)} → ${preview(c.after, 40)}`)],
      ),
    ),
    group(
      'Added upstream',
      'added',
      items(
        by('added'),
        (c) => pattern(to(c)),
        (c) => [code(formatPath(to(c))), ' = ', h('span', { class: 'muted' }, preview(c.after, 80)), c.receives ? h('span', { class: 'muted' }, ` (holds ${c.receives} moved)`) : null],
        (c, n) => [code(pattern(to(c))), times(n), ' ', h('span', { class: 'muted' }, `e.g. ${preview(c.after, 60)}`)],
      ),
    ),
    tools ? toolGroup(tools) : null,
  ].filter((g) => g !== null);
  const omitted = diff && diff.omitted > 0 ? h('p', { class: 'muted' }, `${diff.omitted} more changes not listed.`) : null;
  if (groups.length === 0 && !omitted) return h('p', { class: 'muted' }, 'The provider received the body as the client sent it.');
  return h('div', { class: 'change-list' }, groups, omitted);
}

function toolGroup(t: ToolChanges): HTMLElement | null {
  const items: Child[] = [
    ...t.dropped.map((d) => ['dropped ', code(d.name), h('span', { class: 'muted' }, ` (${d.kind}${d.children ? `: ${d.children.join(', ')}` : ''})`)]),
    ...t.flattened.map((f) => ['flattened ', code(f.from), ' → ', code(f.to)]),
    ...t.converted.map((c) => ['converted ', code(c.name), h('span', { class: 'muted' }, ` (${c.from} → ${c.to})`)]),
    ...t.added.map((a) => ['added ', code(a)]),
  ];
  if (items.length === 0) return null;
  if (t.kept.length > 0) items.push(h('span', { class: 'muted' }, `${t.kept.length} kept as they were`));
  return group('Tools', 'tools', items);
}
