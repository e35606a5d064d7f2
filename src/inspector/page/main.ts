/**
 * The inspector page: a header, and one of four views chosen by the URL hash
 * (`#/` the list, `#/x/<id>` one exchange, `#/sessions`, `#/stats`). The list loads once and is
 * kept current by pushed rows; a recording has no pushes.
 */
import './style.css';
import { ApiError, connectEvents, fetchList } from './api.js';
import { detailView } from './detail-view.js';
import { h, replace } from './dom.js';
import { bytes } from './format.js';
import { listView } from './list-view.js';
import { sessionsView } from './sessions-view.js';
import { statsView } from './stats-view.js';
import { loadList, receive, state, subscribe, changed } from './state.js';

interface View {
  readonly el: HTMLElement;
  readonly dispose: () => void;
}

const main = h('main');
const status = h('span', { class: 'conn' });
const memory = h('span', { class: 'memory muted' });
const tabList = h('a', { href: '#/', class: 'tab', 'data-tab': 'list' }, 'Exchanges');
const tabSessions = h('a', { href: '#/sessions', class: 'tab', 'data-tab': 'sessions' }, 'Sessions');
const tabStats = h('a', { href: '#/stats', class: 'tab', 'data-tab': 'stats' }, 'Stats');
let current: View | undefined;

function route(): void {
  current?.dispose();
  const hash = location.hash;
  const detail = /^#\/x\/(.+)$/.exec(hash);
  current = detail?.[1] ? detailView(decodeURIComponent(detail[1])) : hash === '#/sessions' ? sessionsView() : hash === '#/stats' ? statsView() : listView();
  tabList.classList.toggle('active', !detail && hash !== '#/sessions' && hash !== '#/stats');
  tabSessions.classList.toggle('active', hash === '#/sessions');
  tabStats.classList.toggle('active', hash === '#/stats');
  replace(main, current.el);
  window.scrollTo(0, 0);
}

/** A recording's lines that were not exchanges: how many, and which (the first few). */
function skippedText(m: NonNullable<typeof state.meta>): string {
  const s = m.skippedLines;
  if (!s) return '';
  const shown = s.lines.slice(0, 10).join(', ');
  return ` · ${s.count} line${s.count === 1 ? '' : 's'} of the file skipped, not exchanges (line ${shown}${s.count > 10 ? ', …' : ''})`;
}

function drawHeader(): void {
  const m = state.meta;
  const c = state.connection;
  status.className = `conn conn-${c}${state.paused ? ' conn-paused' : ''}`;
  status.textContent =
    c === 'recording' ? `recording: ${m?.source ?? ''}` : state.paused ? 'paused' : c === 'live' ? 'live' : c === 'offline' ? 'disconnected' : 'connecting…';
  memory.textContent = m
    ? `${state.rows.size} of last ${m.capacity} kept · ${bytes(m.bytes)} of ${bytes(m.maxBytes)}${m.evicted ? ` · ${m.evicted} dropped` : ''}${skippedText(m)}`
    : '';
  if (state.error) replace(main, h('div', { class: 'error-box' }, state.error));
}

async function refresh(): Promise<void> {
  try {
    const list = await fetchList();
    state.error = undefined;
    if (list.mode === 'recording') state.connection = 'recording';
    loadList(list);
  } catch (err) {
    state.error =
      err instanceof ApiError && err.status === 401
        ? 'Not signed in: open the inspector through the link model-gateway printed (each link works once).'
        : `Could not load the exchanges: ${(err as Error).message}`;
    changed();
  }
}

async function start(): Promise<void> {
  document.body.replaceChildren(
    h('header', null, h('h1', null, 'model-gateway ', h('span', { class: 'muted' }, 'inspector')), h('nav', null, tabList, tabSessions, tabStats), status, memory),
    main,
  );
  subscribe(drawHeader);
  window.addEventListener('hashchange', route);
  route();
  await refresh();
  if (state.connection === 'recording' || state.error) return;
  connectEvents(
    (e) => {
      // A hello comes on every (re)connection: rows pushed while disconnected are fetched again.
      if (e.type === 'hello') void refresh();
      else receive(e.summary, e.use);
    },
    (c) => {
      state.connection = c;
      changed();
    },
  );
}

void start();
