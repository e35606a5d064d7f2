/**
 * Sessions: one row per client conversation with its request count, tokens and
 * prompt-cache hit rate, and a strip with one bar per request (cache read, cache
 * written, uncached) so the request where caching broke stands out.
 */
import { groupSessions, type SessionPoint, type SessionStats } from '../common/session.js';
import { h, replace } from './dom.js';
import { clock, duration, percent, tokens, usd } from './format.js';
import { changed, state, subscribe } from './state.js';

/** The columns, each with the class that narrow windows hide or keep it by. */
const COLUMNS: readonly (readonly [string, string])[] = [
  ['Session', 'session'],
  ['Client', 'client'],
  ['Requests', 'requests'],
  ['Last', 'last'],
  ['Input', 'input'],
  ['Output', 'output'],
  ['Cache read', 'read'],
  ['Cache written', 'written'],
  ['Uncached', 'uncached'],
  ['Hit rate', 'hit'],
  ['Time', 'duration'],
  ['Cost', 'cost'],
  ['Per request', 'strip'],
];

export function sessionsView(): { readonly el: HTMLElement; readonly dispose: () => void } {
  const body = h('tbody');
  const empty = h('p', { class: 'empty muted' });
  const draw = () => {
    const sessions = groupSessions([...state.rows.values()]);
    replace(body, sessions.map(row));
    empty.textContent = sessions.length === 0 ? 'No sessions yet: Claude Code and Codex send a session id with each request; other clients do not.' : '';
    empty.hidden = sessions.length > 0;
  };
  const unsubscribe = subscribe(draw);
  draw();
  const el = h(
    'section',
    { class: 'view-sessions' },
    h(
      'p',
      { class: 'muted legend' },
      h('span', { class: 'swatch read' }), ' cache read ',
      h('span', { class: 'swatch write' }), ' cache written ',
      h('span', { class: 'swatch uncached' }), ' uncached input · ',
      'a bar marked ⚠ read much less from the cache than the request before had cached: the prompt prefix changed (or the cache expired).',
    ),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'sessions' },
        h('thead', null, h('tr', null, COLUMNS.map(([c, name]) => h('th', { class: `col-${name}` }, c)))),
        body,
      ),
    ),
    empty,
  );
  return { el, dispose: unsubscribe };
}

function row(s: SessionStats): HTMLElement {
  const showExchanges = (e: Event) => {
    e.preventDefault();
    // The list's text filter finds a session's exchanges by its id.
    state.filter = { ...state.filter, text: s.id };
    location.hash = '#/';
    changed();
  };
  return h(
    'tr',
    { class: 'session', 'data-session': s.id },
    h('td', { class: 'col-session', title: s.id }, h('a', { href: '#/', onclick: showExchanges }, s.id.length > 13 ? `${s.id.slice(0, 13)}…` : s.id)),
    h('td', { class: 'col-client' }, s.client ?? '', agentsNote(s)),
    h('td', { class: 'num col-requests' }, s.requests),
    h('td', { class: 'num col-last' }, clock(s.last)),
    h('td', { class: 'num col-input' }, tokens(s.inputTokens)),
    h('td', { class: 'num col-output' }, tokens(s.outputTokens)),
    h('td', { class: 'num col-read' }, tokens(s.cacheRead)),
    h('td', { class: 'num col-written' }, tokens(s.cacheWrite)),
    h('td', { class: 'num col-uncached' }, tokens(s.uncached)),
    h(
      'td',
      { class: `num col-hit hit-rate ${s.hitRate === undefined ? '' : s.hitRate >= 0.5 ? 'good' : s.hitRate > 0 ? 'fair' : 'poor'}` },
      s.hitRate === undefined ? '—' : percent(s.hitRate),
      s.cacheBreaks > 0 ? h('span', { class: 'warn-count', title: `${s.cacheBreaks} cache break(s)` }, ` ⚠${s.cacheBreaks}`) : null,
    ),
    h('td', { class: 'num col-duration' }, duration(s.durationMs)),
    h('td', { class: 'num col-cost', title: s.unpriced > 0 ? `${s.unpriced} request(s) of a model with no known price` : '' }, s.costUsd !== undefined ? usd(s.costUsd) : s.unpriced > 0 ? 'no price' : '—', s.costUsd !== undefined && s.unpriced > 0 ? '+?' : ''),
    h('td', { class: 'col-strip' }, strip(s.points)),
  );
}

/** How many subagents a session ran; the title lists them, each with the agent that started it. */
function agentsNote(s: SessionStats): HTMLElement | null {
  if (s.agents.length === 0) return null;
  const title = s.agents.map((a) => `${a.id}${a.parentAgentId ? ` (from ${a.parentAgentId})` : ''}: ${a.requests} request(s)`).join('\n');
  return h('span', { class: 'muted', title }, ` · ${s.agents.length} subagent${s.agents.length === 1 ? '' : 's'}`);
}

/** One bar per request, its three parts in proportion to that request's input. */
function strip(points: readonly SessionPoint[]): HTMLElement {
  return h(
    'div',
    { class: 'strip' },
    points.map((p) => {
      const total = Math.max(1, p.inputTokens);
      const part = (cls: string, n: number) => {
        const el = h('span', { class: cls });
        // Set through the CSSOM: the page's CSP forbids style attributes in markup, not this.
        el.style.height = `${(100 * n) / total}%`;
        return el;
      };
      return h(
        'a',
        {
          class: `bar${p.cacheBreak ? ' break' : ''}${p.agentId !== undefined ? ' subagent' : ''}`,
          href: `#/x/${encodeURIComponent(p.id)}`,
          title: `${clock(p.time)}${p.agentId !== undefined ? ` · subagent ${p.agentId}` : ''} · input ${p.inputTokens} · read ${p.cacheRead} · written ${p.cacheWrite} · uncached ${p.uncached}${p.cacheBreak ? ' · cache break' : ''}`,
        },
        part('read', p.cacheRead),
        part('write', p.cacheWrite),
        part('uncached', p.uncached),
      );
    }),
  );
}
