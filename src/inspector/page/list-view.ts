/**
 * The exchange list: filters on top, one row per exchange, newest first. The filter
 * controls are built once (typing keeps its focus); only the rows are redrawn.
 */
import { matches, type StatusFilter } from '../common/filter.js';
import type { ExchangeSummary } from '../common/types.js';
import { h, replace } from './dom.js';
import { searchBodies } from './api.js';
import { clock, dateTime, duration, statusClass, tokens, usd } from './format.js';
import { changed, setPaused, sortedRows, state, subscribe } from './state.js';

const STATUS_OPTIONS: readonly [StatusFilter, string][] = [
  ['all', 'any status'],
  ['2xx', '2xx'],
  ['4xx', '4xx'],
  ['5xx', '5xx'],
  ['failed', 'failed (any)'],
  ['pending', 'in flight'],
];

/** How long typing must pause before the bodies are searched. */
const SEARCH_PAUSE_MS = 300;
/** The exchanges whose bodies hold the filter's text, as the server last said. */
let bodyHits: ReadonlySet<string> | undefined;

export function listView(): { readonly el: HTMLElement; readonly dispose: () => void } {
  const f = state.filter;
  const text = h('input', { type: 'search', class: 'filter-text', placeholder: 'Filter: words in model, client, key, error, session, prompt, bodies…', value: f.text, 'aria-label': 'Filter text' });
  const status = h('select', { class: 'filter-status', 'aria-label': 'Status' }, STATUS_OPTIONS.map(([v, label]) => h('option', { value: v, selected: v === f.status }, label)));
  const model = h('select', { class: 'filter-model', 'aria-label': 'Model' });
  const group = h('select', { class: 'filter-group', 'aria-label': 'Key group' });
  const pause = h('button', { type: 'button', class: 'pause' });
  const count = h('span', { class: 'count muted' });
  const body = h('tbody');
  const empty = h('p', { class: 'empty muted' });

  // Bodies are searched on the server once typing pauses, not per keystroke; rows match on their facts meanwhile.
  let searchTimer: ReturnType<typeof setTimeout> | undefined;
  let asked = '';
  const searchSoon = () => {
    clearTimeout(searchTimer);
    const q = text.value.trim();
    if (q.length < 3) {
      bodyHits = undefined;
      return;
    }
    searchTimer = setTimeout(() => {
      asked = q;
      searchBodies(q).then(
        (r) => {
          if (asked !== q || text.value.trim() !== q) return;
          bodyHits = new Set(r.ids);
          changed();
        },
        () => {
          bodyHits = undefined;
        },
      );
    }, SEARCH_PAUSE_MS);
  };
  const update = () => {
    state.filter = { text: text.value, status: status.value as StatusFilter, model: model.value, group: group.value };
    searchSoon();
    changed();
  };
  text.addEventListener('input', update);
  for (const s of [status, model, group]) s.addEventListener('change', update);
  pause.addEventListener('click', () => setPaused(!state.paused));

  const table = h(
    'table',
    { class: 'list' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        [['Time', 'time'], ['Client', 'client'], ['Key', 'key'], ['Model and prompt', 'model'], ['Protocol', 'route'], ['Status', 'status'], ['Duration', 'duration'], ['TTFT', 'ttft'], ['In', 'in'], ['Out', 'out'], ['Cached', 'cached'], ['Cost', 'cost']].map(([c, name]) =>
          h('th', { class: `col-${name}` }, c),
        ),
      ),
    ),
    body,
  );

  const draw = () => {
    const rows = sortedRows();
    fillOptions(model, 'any model', rows.map((r) => r.model), state.filter.model);
    fillOptions(group, 'any group', rows.map((r) => r.keyGroup), state.filter.group);
    const shown = rows.filter((r) => matches(r, state.filter, bodyHits));
    replace(body, shown.map(row));
    const live = state.connection !== 'recording';
    pause.hidden = !live;
    pause.textContent = state.paused ? `Resume${state.queued.size ? ` (${state.queued.size} new)` : ''}` : 'Pause';
    pause.classList.toggle('active', state.paused);
    const noun = rows.length === 1 ? 'exchange' : 'exchanges';
    count.textContent = shown.length === rows.length ? `${rows.length} ${noun}` : `${shown.length} of ${rows.length} ${noun}`;
    empty.textContent =
      rows.length === 0
        ? live
          ? 'No requests yet. Point a client at the gateway: each request appears here as it starts, and the last ones stay here while no page is open (inspector.history).'
          : 'The recording holds no exchanges.'
        : shown.length === 0
          ? 'No exchange matches the filters.'
          : '';
    empty.hidden = empty.textContent === '';
  };
  const unsubscribe = subscribe(draw);
  draw();

  const el = h(
    'section',
    { class: 'view-list' },
    h('div', { class: 'filters' }, text, status, model, group, pause, count),
    h('div', { class: 'table-wrap' }, table),
    empty,
  );
  return { el, dispose: unsubscribe };
}

/** Keeps a select's options in step with the values in the rows, the current choice included. */
function fillOptions(select: HTMLSelectElement, anyLabel: string, values: readonly (string | undefined)[], current: string): void {
  const wanted = [...new Set(values.filter((v): v is string => v !== undefined && v !== ''))].sort();
  if (current !== '' && !wanted.includes(current)) wanted.unshift(current);
  const have = Array.from(select.options).slice(1).map((o) => o.value);
  if (have.length === wanted.length && have.every((v, i) => v === wanted[i])) return;
  replace(select, h('option', { value: '' }, anyLabel), wanted.map((v) => h('option', { value: v, selected: v === current }, v)));
}

function row(s: ExchangeSummary): HTMLElement {
  const href = `#/x/${encodeURIComponent(s.id)}`;
  const route = s.translated ? `${s.protocol}→${s.upstreamProtocol}` : (s.protocol ?? '');
  const u = s.usage;
  return h(
    'tr',
    {
      class: `row ${s.pending ? 'pending' : statusClass(s.status)}${s.restored ? ' restored' : ''}`,
      'data-id': s.id,
      onclick: (e) => {
        if ((e.target as HTMLElement).closest('a')) return;
        location.hash = href;
      },
    },
    h('td', { class: 'col-time', title: dateTime(s.time) }, h('a', { href }, clock(s.time))),
    s.restored
      ? h('td', { class: 'col-client muted', title: 'from before the gateway restarted: its facts, from the usage ledger' }, '↺ before restart')
      : h('td', { class: 'col-client', title: s.client?.label ?? '' }, s.client?.label ?? ''),
    h('td', { class: 'col-key' }, s.keyGroup ? `${s.keyGroup}:${s.keyName ?? '?'}` : ''),
    h(
      'td',
      { class: 'col-model', title: [s.model, s.provider ? `→ ${s.provider}/${s.upstreamModel ?? ''}` : '', s.preview ? `\n${s.preview}` : ''].join(' ') },
      h(
        'span',
        { class: 'model-route' },
        s.model ?? h('span', { class: 'muted' }, `${s.method} ${s.path}`),
        s.servedBy ? h('span', { class: 'fallback', title: `${s.model ?? 'the model asked for'} failed; ${s.servedBy} answered` }, ` ⤷ fallback ${s.servedBy}`) : null,
        s.provider ? h('span', { class: 'muted' }, ` → ${s.provider}/${s.upstreamModel ?? s.model ?? ''}`) : null,
      ),
      s.preview ? h('div', { class: 'preview muted' }, s.preview) : null,
      s.error && !s.pending ? h('div', { class: 'why' }, s.error) : null,
    ),
    h(
      'td',
      { class: `col-route${s.translated ? ' translated' : ''}` },
      route,
      s.warnings > 0 ? h('span', { class: 'warn-count', title: `${s.warnings} dropped or approximated` }, ` ⚠${s.warnings}`) : null,
    ),
    h(
      'td',
      { class: 'col-status' },
      statusBadge(s),
      s.retries ? h('span', { class: 'retries', title: `${s.retries} attempt${s.retries === 1 ? '' : 's'} failed before the answer (retries and fallbacks)` }, ` ↻${s.retries}`) : null,
    ),
    h('td', { class: 'col-duration num' }, duration(s.durationMs)),
    h('td', { class: 'col-ttft num', title: s.ttfbMs !== undefined ? `first byte ${duration(s.ttfbMs)}` : '' }, duration(s.ttftMs)),
    h('td', { class: 'col-in num', title: u?.inputTokens !== undefined ? String(u.inputTokens) : '' }, tokens(u?.inputTokens)),
    h('td', { class: 'col-out num' }, tokens(u?.outputTokens)),
    h(
      'td',
      { class: 'col-cached num', title: u ? `cache read ${u.cachedTokens ?? 0}, written ${u.cacheWriteTokens ?? 0}` : '' },
      tokens(u?.cachedTokens),
      u?.cacheWriteTokens ? h('span', { class: 'muted' }, ` +${tokens(u.cacheWriteTokens)}w`) : null,
    ),
    h('td', { class: 'col-cost num', title: s.costUsd === null ? 'no known price for this model' : '' }, s.costUsd === undefined ? '' : s.costUsd === null ? '—' : usd(s.costUsd)),
  );
}

export function statusBadge(s: ExchangeSummary): HTMLElement {
  if (s.pending) return h('span', { class: 'badge pending', title: 'in flight' }, '…');
  const text = s.status === undefined ? (s.aborted ? 'abort' : '—') : `${s.status}${s.aborted ? '✂' : ''}`;
  return h('span', { class: `badge ${statusClass(s.status)}`, title: s.error ?? (s.aborted ? 'the client closed the connection' : '') }, text);
}
