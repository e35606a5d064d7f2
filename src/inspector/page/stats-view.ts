/**
 * Stats over the kept exchanges: totals (requests, error rate, tokens, cache hit rate, cost), the
 * 50th and 95th percentiles of duration and time to first token, the same per model and per key, and
 * three small charts over time (requests with failures, tokens in and out, the cache hit rate), drawn
 * as bars of plain elements: no chart library, no markup strings.
 */
import { buckets, totals, totalsBy, type Bucket, type Totals } from '../common/stats.js';
import type { ExchangeSummary } from '../common/types.js';
import { h, replace } from './dom.js';
import { clock, duration, percent, tokens, usd } from './format.js';
import { state, subscribe } from './state.js';

/** Bars per chart. */
const BUCKETS = 30;

export function statsView(): { readonly el: HTMLElement; readonly dispose: () => void } {
  const el = h('section', { class: 'view-stats' });
  const draw = () => {
    const rows = [...state.rows.values()].filter((r) => !r.pending);
    if (rows.length === 0) {
      replace(el, h('p', { class: 'empty muted' }, 'No finished exchanges yet.'));
      return;
    }
    const all = totals(rows);
    const spans = buckets(rows, BUCKETS);
    replace(
      el,
      cards(all),
      h(
        'div',
        { class: 'charts' },
        chart('Requests (failed in red)', spans, [
          ['ok', (b) => b.requests - b.failed],
          ['bad', (b) => b.failed],
        ], (b) => `${b.requests} requests, ${b.failed} failed`),
        chart('Tokens (input, output)', spans, [
          ['in', (b) => b.inputTokens],
          ['out', (b) => b.outputTokens],
        ], (b) => `in ${b.inputTokens}, out ${b.outputTokens}`),
        chart('Cache hit rate', spans, [['read', (b) => (b.inputTokens > 0 ? b.cacheRead / b.inputTokens : 0)]], hitLabel, 1),
      ),
      breakdown('By model', totalsBy(rows, (r) => r.model)),
      breakdown('By key', totalsBy(rows, (r: ExchangeSummary) => (r.keyGroup ? `${r.keyGroup}:${r.keyName ?? '?'}` : undefined))),
    );
  };
  const unsubscribe = subscribe(draw);
  draw();
  return { el, dispose: unsubscribe };
}

const hitLabel = (b: Bucket) =>
  b.inputTokens > 0 ? `${percent(b.cacheRead / b.inputTokens)} of ${b.inputTokens} input tokens read from the cache` : 'no input tokens';

const costText = (t: Totals) => (t.costUsd !== undefined ? `${usd(t.costUsd)}${t.unpriced > 0 ? ' +?' : ''}` : t.unpriced > 0 ? 'no price' : '—');

function cards(t: Totals): HTMLElement {
  const card = (label: string, value: string, name: string, note?: string) =>
    h('div', { class: 'card', 'data-stat': name }, h('div', { class: 'card-value' }, value), h('div', { class: 'card-label muted' }, label, note ? ` · ${note}` : ''));
  return h(
    'div',
    { class: 'cards' },
    card('requests', String(t.requests), 'requests'),
    card('error rate', percent(t.requests > 0 ? t.failed / t.requests : 0), 'errors', `${t.failed} failed`),
    card('tokens in / out', `${tokens(t.inputTokens)} / ${tokens(t.outputTokens)}`, 'tokens'),
    card('cache hit rate', t.hitRate === undefined ? '—' : percent(t.hitRate), 'hit-rate'),
    card('cost', costText(t), 'cost', t.costUsd === undefined ? 'tokens until prices are known' : undefined),
    card('duration p50 / p95', `${duration(t.durationP50) || '—'} / ${duration(t.durationP95) || '—'}`, 'duration'),
    card('first token p50 / p95', `${duration(t.ttftP50) || '—'} / ${duration(t.ttftP95) || '—'}`, 'ttft'),
  );
}

/** Stacked bars, one per span of time; `max` fixes the scale (a rate's 1), else the tallest bar sets it. */
function chart(
  title: string,
  spans: readonly Bucket[],
  parts: readonly (readonly [string, (b: Bucket) => number])[],
  label: (b: Bucket) => string,
  max?: number,
): HTMLElement {
  const top = max ?? Math.max(1, ...spans.map((b) => parts.reduce((n, [, f]) => n + f(b), 0)));
  return h(
    'figure',
    { class: 'chart', 'data-chart': title },
    h('figcaption', null, title),
    h(
      'div',
      { class: 'chart-bars' },
      spans.map((b) => {
        const bar = h('div', { class: 'chart-bar', title: `${clock(b.start)}: ${label(b)}` });
        for (const [cls, f] of parts) {
          const seg = h('span', { class: `seg seg-${cls}` });
          // Through the CSSOM: the page's CSP forbids style attributes in markup, not this.
          seg.style.height = `${(100 * f(b)) / top}%`;
          bar.append(seg);
        }
        return bar;
      }),
    ),
    h('div', { class: 'chart-axis muted' }, h('span', null, clock(spans[0]!.start)), h('span', null, clock(spans[spans.length - 1]!.start))),
  );
}

function breakdown(title: string, groups: readonly [string, Totals][]): HTMLElement | null {
  if (groups.length === 0) return null;
  const head = ['', 'Requests', 'Errors', 'In', 'Out', 'Hit rate', 'p50', 'p95', 'Cost'];
  return h(
    'div',
    { class: 'part breakdown' },
    h('h3', null, title),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'stats' },
        h('thead', null, h('tr', null, head.map((c, i) => h('th', { class: i > 0 ? `num col-s${i}` : '' }, c)))),
        h(
          'tbody',
          null,
          groups.map(([name, t]) =>
            h(
              'tr',
              { 'data-group': name },
              h('td', { class: 'stat-name' }, name),
              h('td', { class: 'num col-s1' }, t.requests),
              h('td', { class: 'num col-s2' }, t.failed > 0 ? `${t.failed} (${percent(t.failed / t.requests)})` : '0'),
              h('td', { class: 'num col-s3' }, tokens(t.inputTokens)),
              h('td', { class: 'num col-s4' }, tokens(t.outputTokens)),
              h('td', { class: 'num col-s5' }, t.hitRate === undefined ? '—' : percent(t.hitRate)),
              h('td', { class: 'num col-s6' }, duration(t.durationP50)),
              h('td', { class: 'num col-s7' }, duration(t.durationP95)),
              h('td', { class: 'num col-s8' }, costText(t)),
            ),
          ),
        ),
      ),
    ),
  );
}
