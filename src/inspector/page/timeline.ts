/**
 * A stream as a timeline: one row per event with its arrival time (ms since the
 * request arrived) and the gap since the one before, a page of rows at a time, each
 * row opening into the event's data as a tree.
 */
import type { BodyJson, StreamEventJson } from '../../log/exchange-json.js';
import { h } from './dom.js';
import { bytes, preview } from './format.js';
import { jsonTree, longString, type Mark } from './json-tree.js';

const PAGE = 200;

export function timeline(events: readonly StreamEventJson[]): HTMLElement {
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'timeline' },
    h('thead', null, h('tr', null, h('th', null, 't'), h('th', null, '+Δ'), h('th', null, 'event'), h('th', null, 'data'))),
    body,
  );
  const footer = h('div', { class: 'timeline-footer' });
  const draw = (from: number) => {
    const to = Math.min(events.length, from + PAGE);
    for (let i = from; i < to; i++) body.append(...row(events, i));
    footer.replaceChildren();
    if (to < events.length) {
      footer.appendChild(
        h('button', { class: 'link more', type: 'button', onclick: () => draw(to) }, `show ${Math.min(PAGE, events.length - to)} more of ${events.length - to} events`),
      );
    }
  };
  draw(0);
  return h('div', { class: 'timeline-wrap' }, h('p', { class: 'muted' }, `${events.length} events`), table, footer);
}

function row(events: readonly StreamEventJson[], i: number): HTMLElement[] {
  const e = events[i]!;
  const gap = i === 0 ? undefined : e.t - events[i - 1]!.t;
  const name = e.event ?? eventType(e.data) ?? '';
  const detail = h('tr', { class: 'event-detail', hidden: true }, h('td', { colspan: 4 }));
  const tr = h(
    'tr',
    {
      class: 'event',
      'data-event': name,
      onclick: () => {
        const cell = detail.firstElementChild!;
        if (cell.childElementCount === 0) cell.appendChild(typeof e.data === 'string' ? longString(e.data) : jsonTree(e.data, { openDepth: 3 }));
        detail.hidden = !detail.hidden;
      },
    },
    h('td', { class: 'num' }, `${e.t.toFixed(1)}`),
    h('td', { class: 'num muted' }, gap === undefined ? '' : `+${gap.toFixed(1)}`),
    h('td', { class: 'event-name' }, name),
    h('td', { class: 'event-data' }, preview(e.data, 160)),
  );
  return [tr, detail];
}

/** Chat chunks and some servers' events carry no `event:` line; their type is in the data. */
function eventType(data: unknown): string | undefined {
  if (typeof data === 'object' && data !== null) {
    const t = (data as Record<string, unknown>).type ?? (data as Record<string, unknown>).object;
    if (typeof t === 'string') return t;
  }
  return typeof data === 'string' ? data.slice(0, 20) : undefined;
}

/** Any captured body: a stream's timeline, a JSON tree, text, or a word that it was empty. */
export function bodyView(body: BodyJson | undefined, marks?: ReadonlyMap<string, Mark>): HTMLElement {
  if (!body || body.bytes === 0) return h('p', { class: 'muted' }, body?.truncated ? '(not captured: the exchange was over its capture limit)' : '(empty)');
  const cut = body.truncated ? h('p', { class: 'badge warn' }, `Cut at the capture limit: ${bytes(body.bytes)} kept.`) : null;
  if (body.events) return h('div', null, cut, timeline(body.events));
  if (body.json !== undefined) return h('div', null, h('p', { class: 'muted' }, bytes(body.bytes)), jsonTree(body.json, marks ? { marks } : {}));
  return h('div', null, cut, h('pre', { class: 'text-body' }, longString(body.text ?? '', 'text')));
}
