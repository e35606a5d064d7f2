/**
 * A JSON value as a collapsible tree that stays fast on megabyte bodies: objects and
 * arrays are `<details>` whose children are built the first time they open, long
 * arrays show a page of children at a time, and long strings are cut with "show more".
 * Paths can carry marks (what translation changed), shown on the node, with a dot on
 * every collapsed ancestor so changes are found without opening everything.
 */
import { formatPath, type Path } from '../common/diff.js';
import { h, type Child } from './dom.js';

export type MarkKind = 'removed' | 'added' | 'changed' | 'moved' | 'moved-in';

export interface Mark {
  readonly kind: MarkKind;
  /** The tag shown beside the node: "dropped", "→ messages[0].content". */
  readonly label: string;
  readonly path: Path;
}

export interface TreeOptions {
  /** By formatted path (`formatPath`). */
  readonly marks?: ReadonlyMap<string, Mark>;
  /** Levels open from the start (the root is level 0). */
  readonly openDepth?: number;
}

/** Children shown per page of a long array or object. */
const PAGE = 100;
/** Characters of a string shown before "show more"; each click shows this many times 50 more. */
const STRING_CUT = 300;

export function jsonTree(value: unknown, options: TreeOptions = {}): HTMLElement {
  const marks = options.marks ?? new Map<string, Mark>();
  const marked = ancestors(marks);
  const ctx: Ctx = { marks, marked, openDepth: options.openDepth ?? 1 };
  return h('div', { class: 'tree' }, node(ctx, undefined, value, [], 0));
}

interface Ctx {
  readonly marks: ReadonlyMap<string, Mark>;
  /** Paths with a mark somewhere below them. */
  readonly marked: ReadonlySet<string>;
  readonly openDepth: number;
}

function ancestors(marks: ReadonlyMap<string, Mark>): Set<string> {
  const out = new Set<string>();
  for (const { path } of marks.values()) {
    for (let n = path.length - 1; n >= 0; n--) {
      const k = formatPath(path.slice(0, n));
      if (out.has(k)) break;
      out.add(k);
    }
  }
  return out;
}

function keyLabel(key: string | number | undefined): Child {
  if (key === undefined) return null;
  return [h('span', { class: typeof key === 'number' ? 'j-index' : 'j-key' }, typeof key === 'number' ? key : JSON.stringify(key)), ': '];
}

function markTag(mark: Mark | undefined): Child {
  return mark ? h('span', { class: `mark-tag mark-${mark.kind}` }, mark.label) : null;
}

function node(ctx: Ctx, key: string | number | undefined, value: unknown, path: Path, depth: number): HTMLElement {
  const id = formatPath(path);
  const mark = ctx.marks.get(id);
  const cls = `j-node${mark ? ` mark-${mark.kind}` : ''}`;
  if (value === null || typeof value !== 'object') {
    return h('div', { class: cls, 'data-path': id }, keyLabel(key), primitive(value), markTag(mark));
  }
  const isArray = Array.isArray(value);
  const entries: [string | number, unknown][] = isArray ? value.map((v, i) => [i, v]) : Object.entries(value as object);
  const summary = isArray ? `[${entries.length}]` : `{${entries.length} key${entries.length === 1 ? '' : 's'}}`;
  if (entries.length === 0) return h('div', { class: cls, 'data-path': id }, keyLabel(key), h('span', { class: 'j-punct' }, isArray ? '[]' : '{}'), markTag(mark));

  const children = h('div', { class: 'j-children' });
  const details = h(
    'details',
    { class: `${cls}${ctx.marked.has(id) ? ' has-marks' : ''}`, 'data-path': id },
    h('summary', null, keyLabel(key), h('span', { class: 'j-punct' }, summary), ' ', h('span', { class: 'j-preview' }, shortPreview(value)), markTag(mark)),
    children,
  );
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    page(ctx, children, entries, path, depth, 0);
  };
  details.addEventListener('toggle', () => details.open && build());
  if (depth < ctx.openDepth) {
    details.open = true;
    build();
  }
  return details;
}

function page(ctx: Ctx, into: HTMLElement, entries: readonly [string | number, unknown][], path: Path, depth: number, from: number): void {
  const to = Math.min(entries.length, from + PAGE);
  for (let i = from; i < to; i++) {
    const [k, v] = entries[i]!;
    into.appendChild(node(ctx, k, v, [...path, k], depth + 1));
  }
  if (to < entries.length) {
    const more: HTMLButtonElement = h(
      'button',
      {
        class: 'link more',
        type: 'button',
        onclick: () => {
          more.remove();
          page(ctx, into, entries, path, depth, to);
        },
      },
      `show ${Math.min(PAGE, entries.length - to)} more of ${entries.length - to}`,
    );
    into.appendChild(more);
  }
}

function primitive(value: unknown): HTMLElement {
  if (typeof value === 'string') return longString(value);
  const cls = value === null ? 'j-null' : typeof value === 'number' ? 'j-number' : 'j-bool';
  return h('span', { class: cls }, String(value));
}

/** A string cut at STRING_CUT characters, with a button that shows much more of it at each click. */
export function longString(text: string, cls = 'j-string'): HTMLElement {
  const quoted = JSON.stringify(text);
  if (quoted.length <= STRING_CUT) return h('span', { class: cls }, quoted);
  const span = h('span', { class: cls });
  let shown = STRING_CUT;
  const draw = () => {
    const more = quoted.length - shown;
    span.replaceChildren(quoted.slice(0, shown));
    if (more > 0) {
      span.appendChild(h('button', { class: 'link more', type: 'button', onclick: showMore }, `… show more (${more.toLocaleString()} chars)`));
    }
  };
  const showMore = () => {
    shown += STRING_CUT * 50;
    draw();
  };
  draw();
  return span;
}

/** A collapsed node's hint: a message's role, a block's type, a tool's name. */
function shortPreview(value: object): string {
  if (Array.isArray(value)) return '';
  const v = value as Record<string, unknown>;
  for (const k of ['type', 'role', 'name', 'event']) {
    if (typeof v[k] === 'string') return `${k}: ${v[k] as string}`;
  }
  return '';
}
