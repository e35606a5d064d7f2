/**
 * One exchange in full: its facts, errors with their cause, what translation changed,
 * the client's request beside the upstream request (changes marked on both), the
 * upstream answer as a timeline, and what the client received. Fetched when opened;
 * an exchange still in flight is fetched again when it ends.
 */
import type { AttemptJson, ExchangeJson } from '../../log/exchange-json.js';
import { curlCommand } from '../common/curl.js';
import { diffBodies } from '../common/diff.js';
import { toolChanges, toolsOf } from '../common/tools.js';
import type { ExchangeDetail, ExchangeSummary } from '../common/types.js';
import { ApiError, fetchDetail } from './api.js';
import { diffMarks, changeList } from './diff-view.js';
import { h, replace, type Child } from './dom.js';
import { bytes, dateTime, duration } from './format.js';
import { statusBadge } from './list-view.js';
import { state, subscribe } from './state.js';
import { bodyView } from './timeline.js';
import { conversationView } from './conversation-view.js';

export function detailView(id: string): { readonly el: HTMLElement; readonly dispose: () => void } {
  const el = h('section', { class: 'view-detail' }, h('p', { class: 'muted' }, 'Loading…'));
  let shown: ExchangeSummary | undefined;
  let disposed = false;
  const load = () =>
    fetchDetail(id).then(
      (d) => {
        if (disposed) return;
        shown = d.summary;
        replace(el, ...render(d));
      },
      (err: unknown) => {
        if (disposed) return;
        const gone = err instanceof ApiError && err.status === 404;
        replace(el, back(), h('p', { class: 'error-box' }, gone ? `Exchange ${id} is no longer in memory: the oldest are dropped to make room.` : String((err as Error).message)));
      },
    );
  void load();
  const unsubscribe = subscribe(() => {
    const now = state.rows.get(id);
    if (shown?.pending && now && !now.pending) {
      shown = now;
      void load();
    }
  });
  return {
    el,
    dispose: () => {
      disposed = true;
      unsubscribe();
    },
  };
}

const back = () => h('a', { href: '#/', class: 'back' }, '← Exchanges');

/** The view last chosen, kept while the page is open: whoever reads raw bodies reads them for every exchange. */
let showRaw = false;

/** The conversation (the default) or the raw bodies and event timelines, one click apart. */
function viewSwitch(conversation: HTMLElement, raw: HTMLElement): HTMLElement {
  const tab = (label: string, name: string, raw_: boolean) =>
    h(
      'button',
      {
        type: 'button',
        class: `tab view-tab${showRaw === raw_ ? ' active' : ''}`,
        'data-view': name,
        onclick: (e) => {
          showRaw = raw_;
          for (const b of Array.from((e.currentTarget as HTMLElement).parentElement!.querySelectorAll('button'))) b.classList.toggle('active', b === e.currentTarget);
          conversation.hidden = raw_;
          raw.hidden = !raw_;
        },
      },
      label,
    );
  conversation.hidden = showRaw;
  raw.hidden = !showRaw;
  return h('div', { class: 'view-switch' }, tab('Conversation', 'conversation', false), tab('Raw bodies and events', 'raw', true));
}

function render({ summary: s, exchange: x, conversation }: ExchangeDetail): Child[] {
  const attempts = x.attempts ?? [];
  const attemptArea = h('div', { class: 'attempt-area' });
  const showAttempt = (i: number) => replace(attemptArea, attemptParts(x, attempts, i));
  showAttempt(attempts.length - 1);
  const raw = h('div', { class: 'raw-view' });
  const conversationArea = conversation ? h('section', { class: 'part part-conversation', 'data-part': 'conversation' }, conversationView(conversation)) : null;
  const bodiesNote = s.restored
    ? h('p', { class: 'muted' }, 'From before the gateway restarted: the usage ledger keeps the facts of a request, never its bodies.')
    : s.bodiesDropped
      ? h('p', { class: 'muted' }, 'The bodies of this exchange were let go to make room for newer ones (inspector.memoryMiB); its facts stay.')
      : s.bodiesSkipped
        ? h(
            'p',
            { class: 'muted' },
            'Only the facts of this exchange were kept: it passed while no page was open, when more requests a second came than inspector.bodiesPerSecond keeps whole. With a page open, every exchange is kept whole.',
          )
        : null;

  const rawParts: Child[] = [
    attempts.length > 1
      ? h(
          'div',
          { class: 'attempt-tabs' },
          'Upstream attempt: ',
          attempts.map((a, i) =>
            h(
              'button',
              {
                type: 'button',
                class: `tab${i === attempts.length - 1 ? ' active' : ''}`,
                onclick: (e) => {
                  for (const b of Array.from((e.currentTarget as HTMLElement).parentElement!.querySelectorAll('button'))) b.classList.remove('active');
                  (e.currentTarget as HTMLElement).classList.add('active');
                  showAttempt(i);
                },
              },
              `${i + 1}: ${a.provider}/${a.upstreamModel}${a.credential ? ` with ${a.credential}` : ''} ${a.status ?? a.error ?? ''}`,
            ),
          ),
        )
      : null,
    attemptArea,
    section(
      'Response to the client',
      'client-response',
      x.response
        ? [
            h('p', null, 'Status ', h('strong', null, String(x.response.status ?? '—')), s.ttftMs !== undefined ? h('span', { class: 'muted' }, ` · first token at ${duration(s.ttftMs)}`) : null),
            headersBlock(x.response.headers),
            bodyView(x.response.body),
          ]
        : h('p', { class: 'muted' }, 'Not captured.'),
    ),
  ];
  for (const part of rawParts) if (part) raw.append(part as Node);
  return [
    h(
      'div',
      { class: 'detail-head' },
      back(),
      h('h2', null, `${x.method} ${x.path}`, ' ', statusBadge(s)),
      h('span', { class: 'muted mono' }, x.id),
      x.request ? curlButton(x) : null,
    ),
    facts(s, x),
    problems(x, attempts),
    bodiesNote,
    conversationArea ? [viewSwitch(conversationArea, raw), conversationArea] : null,
    raw,
  ];
}

function facts(s: ExchangeSummary, x: ExchangeJson): HTMLElement {
  const u = s.usage;
  const rows: [string, Child][] = [
    ['Time', dateTime(s.time)],
    ['Client', s.client?.label ?? x.userAgent ?? '—'],
    ['Transport', x.transport === 'websocket' ? 'WebSocket (a response.create message)' : 'HTTP'],
    ['Session', s.sessionId ?? '—'],
    ['Agent', s.agentId ? `subagent ${s.agentId}${s.parentAgentId ? `, started by ${s.parentAgentId}` : ''}` : s.sessionId ? 'main' : '—'],
    ['Key', s.keyGroup ? `${s.keyGroup}:${s.keyName ?? '?'}` : '—'],
    ['Model', s.model ? `${s.model} → ${s.provider ?? '?'}/${s.upstreamModel ?? s.model}${s.credential ? ` with credential ${s.credential}` : ''}` : '—'],
    ['Route', s.translated ? h('span', { class: 'translated' }, `translated ${s.protocol} → ${s.upstreamProtocol}`) : s.protocol ? `native ${s.protocol}` : '—'],
    ['Duration', s.pending ? 'in flight…' : duration(s.durationMs) || '—'],
    ['First byte / token', s.stream ? `${duration(s.ttfbMs) || '—'} / ${duration(s.ttftMs) || '—'}` : 'not a stream'],
    [
      'Tokens',
      u
        ? `in ${u.inputTokens ?? '?'} (cache read ${u.cachedTokens ?? 0}, written ${u.cacheWriteTokens ?? 0}) · out ${u.outputTokens ?? '?'}`
        : '—',
    ],
  ];
  return h('dl', { class: 'facts' }, rows.map(([k, v]) => [h('dt', null, k), h('dd', null, v)]));
}

function problems(x: ExchangeJson, attempts: readonly AttemptJson[]): HTMLElement | null {
  const items: Child[] = [];
  if (x.error) items.push(h('li', null, h('strong', null, 'Gateway: '), x.error));
  attempts.forEach((a, i) => {
    if (a.error === undefined && (a.status ?? 0) < 400) return;
    items.push(
      h(
        'li',
        null,
        h('strong', null, `Attempt ${i + 1} (${a.provider}/${a.upstreamModel})${a.status ? `, HTTP ${a.status}` : ''}: `),
        a.error ?? 'the provider answered with an error',
        a.response.bytes > 0 ? h('details', { class: 'cause' }, h('summary', null, 'cause: what the provider sent'), bodyView(a.response)) : null,
      ),
    );
  });
  if (x.aborted) items.push(h('li', null, 'The client closed the connection before the response was complete.'));
  if (items.length === 0) return null;
  return h('div', { class: 'error-box' }, h('h3', null, 'Errors'), h('ul', null, items));
}

/** Translation changes, the two requests side by side, and the upstream answer, for one attempt. */
function attemptParts(x: ExchangeJson, attempts: readonly AttemptJson[], i: number): Child[] {
  const a = attempts[i];
  const clientBody = x.request?.body;
  const canDiff = clientBody?.json !== undefined && a?.body.json !== undefined;
  const diff = canDiff ? diffBodies(clientBody.json, a.body.json) : undefined;
  const tools = canDiff ? toolChanges(toolsOf(clientBody.json, x.protocol), toolsOf(a.body.json, a.protocol)) : undefined;
  const marks = diff ? diffMarks(diff) : undefined;
  const translated = a !== undefined && x.protocol !== undefined && a.protocol !== x.protocol;
  return [
    a
      ? section(
          translated ? `Translation ${x.protocol} → ${a.protocol}` : 'Changes on the way upstream',
          'translation',
          changeList(diff, tools, x.warnings ?? []),
        )
      : null,
    a && !translated && x.request
      ? nativeRequest(x, a, marks?.client)
      : h(
      'div',
      { class: 'pair' },
      section('Client request', 'client-request', x.request ? [headersBlock(x.request.headers), bodyView(x.request.body, marks?.client)] : h('p', { class: 'muted' }, 'Not captured.')),
      section(
        'Upstream request',
        'upstream-request',
        a
          ? [
              h('p', { class: 'muted' }, `${a.provider}/${a.upstreamModel} (${a.protocol}) sent at ${duration(a.t)}`),
              headersBlock(a.headers, 'the provider credential is added by the transport and never captured'),
              bodyView(a.body, marks?.upstream),
            ]
          : h('p', { class: 'muted' }, 'No upstream request: the gateway answered by itself.'),
      ),
    ),
    a
      ? section('Upstream response', 'upstream-response', [
          h(
            'p',
            null,
            'Status ',
            h('strong', null, String(a.status ?? '—')),
            a.durationMs !== undefined ? h('span', { class: 'muted' }, ` · ${duration(a.durationMs)} from sending`) : null,
          ),
          headersBlock(a.responseHeaders),
          bodyView(a.response),
        ])
      : null,
  ];
}

/**
 * A native exchange sends the client's body on with at most its model renamed: one request is shown,
 * with the upstream's headers and body a click away rather than the same body twice.
 */
function nativeRequest(x: ExchangeJson, a: AttemptJson, marks: Parameters<typeof bodyView>[1]): Child[] {
  const request = x.request!;
  return [
    section('Request', 'client-request', [
      h('p', { class: 'muted' }, `Sent on to ${a.provider}/${a.upstreamModel} (${a.protocol}) at ${duration(a.t)}${a.upstreamModel !== x.model ? `, model renamed to ${a.upstreamModel}` : ''}.`),
      headersBlock(request.headers),
      bodyView(request.body, marks),
    ]),
    h(
      'details',
      { class: 'part part-upstream-request native-upstream', 'data-part': 'upstream-request' },
      h('summary', null, 'The request as the provider received it'),
      headersBlock(a.headers, 'the provider credential is added by the transport and never captured'),
      bodyView(a.body),
    ),
  ];
}

function section(title: string, name: string, content: Child): HTMLElement {
  return h('section', { class: `part part-${name}`, 'data-part': name }, h('h3', null, title), content);
}

function headersBlock(headers: Record<string, unknown> | undefined, note?: string): HTMLElement | null {
  if (!headers) return null;
  const entries = Object.entries(headers);
  return h(
    'details',
    { class: 'headers' },
    h('summary', null, `Headers (${entries.length})`),
    h(
      'table',
      null,
      entries.map(([k, v]) => h('tr', null, h('th', null, k), h('td', { class: v === '[redacted]' ? 'muted' : '' }, Array.isArray(v) ? v.join(', ') : String(v)))),
    ),
    note ? h('p', { class: 'muted' }, note) : null,
  );
}

function curlButton(x: ExchangeJson): HTMLElement {
  const out = h('div', { class: 'curl-out', hidden: true });
  const button = h(
    'button',
    {
      type: 'button',
      class: 'copy-curl',
      onclick: () => {
        // A recording may come from another gateway: its URL is left to the shell.
        const baseUrl = state.connection === 'recording' ? '$MODEL_GATEWAY_URL' : location.origin;
        const command = curlCommand({ baseUrl, method: x.method, path: x.path, headers: x.request?.headers ?? {}, ...(x.request ? { body: x.request.body } : {}) });
        const pre = h('pre', { class: 'curl' }, command);
        const note = h('p', { class: 'muted' }, `${bytes(command.length)} · the key is left as $MODEL_GATEWAY_KEY`);
        replace(out, note, pre);
        out.hidden = false;
        navigator.clipboard?.writeText(command).then(
          () => (note.textContent = `Copied (${bytes(command.length)}); the key is left as $MODEL_GATEWAY_KEY.`),
          () => (note.textContent = 'The browser refused the clipboard: select the command below.'),
        );
      },
    },
    'Copy as curl',
  );
  return h('div', { class: 'curl-box' }, button, out);
}
