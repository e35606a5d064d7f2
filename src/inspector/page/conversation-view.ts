/**
 * An exchange as a readable conversation: the system prompt, each message with its text, thinking
 * (folded away), tool calls with their arguments and tool results under the call they answer, images
 * as thumbnails, and the answer the client got (a stream already assembled by the server). Long texts
 * are folded. Built from DOM nodes and textContent only.
 */
import type { Conversation, ConversationAnswer } from '../common/types.js';
import type * as Ir from '../../translate/ir.js';
import { h, type Child } from './dom.js';
import { tokens } from './format.js';

/** Past either bound a text is shown folded, its start first. */
const FOLD_CHARS = 1600;
const FOLD_LINES = 24;
const SHOWN_CHARS = 700;
const SHOWN_LINES = 10;
/** Tools listed by name before the rest fold away. */
const TOOLS_SHOWN = 12;

export function conversationView(c: Conversation): HTMLElement {
  const callNames = new Map<string, string>();
  for (const m of c.messages) if (m.role === 'assistant') for (const p of m.content) if (p.type === 'tool_call') callNames.set(p.id, p.name);
  return h(
    'div',
    { class: 'conversation', 'data-protocol': c.protocol },
    c.unreadable ? h('p', { class: 'muted unreadable' }, `Not shown as a conversation: ${c.unreadable}. The raw view has the bodies.`) : null,
    c.system.length > 0 ? message('system', 'System', c.system.map((t) => foldedText(t))) : null,
    c.tools.length > 0 ? toolsLine(c.tools) : null,
    c.messages.map((m) => messageOf(m, callNames)),
    c.answer ? answerOf(c.answer) : h('p', { class: 'muted' }, 'No answer was captured.'),
  );
}

function message(role: string, label: Child, parts: Child[], extra?: Child): HTMLElement {
  return h('div', { class: `msg msg-${role}`, 'data-role': role }, h('div', { class: 'msg-role' }, label, extra ?? null), h('div', { class: 'msg-body' }, parts));
}

function messageOf(m: Ir.Message, callNames: ReadonlyMap<string, string>): HTMLElement {
  switch (m.role) {
    case 'system':
      return message('system', 'System', m.content.map((p) => foldedText(p.text)));
    case 'user': {
      const onlyResults = m.content.length > 0 && m.content.every((p) => p.type === 'tool_result');
      return message(onlyResults ? 'tool' : 'user', onlyResults ? 'Tool results' : 'User', m.content.map((p) => userPart(p, callNames)));
    }
    case 'assistant':
      return message('assistant', 'Assistant', m.content.map(assistantPart));
  }
}

function userPart(p: Ir.UserPart, callNames: ReadonlyMap<string, string>): Child {
  switch (p.type) {
    case 'text':
      return foldedText(p.text);
    case 'image':
      return image(p.source);
    case 'file':
      return fileNote(p);
    case 'tool_result':
      return h(
        'div',
        { class: `tool-result${p.isError ? ' is-error' : ''}` },
        h('div', { class: 'tool-head' }, '← ', h('strong', null, callNames.get(p.callId) ?? 'tool'), h('span', { class: 'muted' }, ` ${p.callId}`), p.isError ? h('span', { class: 'bad' }, ' error') : null),
        p.content.map((q) => (q.type === 'text' ? foldedText(q.text) : q.type === 'image' ? image(q.source) : fileNote(q))),
      );
  }
}

function assistantPart(p: Ir.AssistantPart): Child {
  switch (p.type) {
    case 'text':
      return foldedText(p.text);
    case 'refusal':
      return h('div', { class: 'refusal' }, h('strong', null, 'Refused: '), foldedText(p.text));
    case 'reasoning': {
      const text = p.text || (p.summary ?? []).join('\n\n');
      const note = text ? `${text.length.toLocaleString('en')} characters` : p.redacted !== undefined || p.encrypted !== undefined ? 'encrypted' : 'empty';
      return h('details', { class: 'thinking' }, h('summary', null, `Thinking (${note})`), text ? foldedText(text) : null);
    }
    case 'tool_call':
      return h(
        'div',
        { class: 'tool-call' },
        h('div', { class: 'tool-head' }, '→ ', h('strong', null, p.namespace ? `${p.namespace}.${p.name}` : p.name), h('span', { class: 'muted' }, ` ${p.id}`)),
        foldedText(prettyArguments(p.arguments), 'args'),
      );
  }
}

function answerOf(a: ConversationAnswer): HTMLElement {
  const facts = [
    a.streamed ? `streamed, ${a.events ?? 0} events assembled` : 'whole',
    a.stopReason ? `stop: ${a.stopReason}` : null,
    a.usage ? `in ${tokens(a.usage.inputTokens)} · out ${tokens(a.usage.outputTokens)}` : null,
  ].filter((f): f is string => f !== null);
  return h(
    'div',
    { class: 'msg msg-assistant msg-answer', 'data-role': 'answer' },
    h('div', { class: 'msg-role' }, 'Answer', h('span', { class: 'muted answer-facts' }, ` · ${facts.join(' · ')}`)),
    h('div', { class: 'msg-body' }, a.content.map(assistantPart), a.error ? h('div', { class: 'error-box answer-error' }, a.error) : null, a.content.length === 0 && !a.error ? h('p', { class: 'muted' }, '(empty)') : null),
  );
}

function toolsLine(names: readonly string[]): HTMLElement {
  const first = names.slice(0, TOOLS_SHOWN).join(', ');
  const rest = names.slice(TOOLS_SHOWN);
  return h(
    'p',
    { class: 'tools-offered muted' },
    `Tools offered (${names.length}): ${first}`,
    rest.length > 0 ? h('details', { class: 'more-tools' }, h('summary', null, `and ${rest.length} more`), rest.join(', ')) : null,
  );
}

/** Arguments as indented JSON when they are JSON, else as the model wrote them. */
function prettyArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The end of the `n`-th line, or -1 when the text has fewer. */
function lineEnd(text: string, n: number): number {
  let at = -1;
  for (let i = 0; i < n; i++) {
    at = text.indexOf('\n', at + 1);
    if (at < 0) return -1;
  }
  return at;
}

/** A text, folded to its start when long, with a button to show it all (and fold it again). */
export function foldedText(text: string, kind = 'text'): HTMLElement {
  const el = h('div', { class: `ctext ctext-${kind}` });
  const long = text.length > FOLD_CHARS || lineEnd(text, FOLD_LINES) >= 0;
  if (!long) {
    el.textContent = text;
    return el;
  }
  const cutLine = lineEnd(text, SHOWN_LINES);
  const cut = Math.min(SHOWN_CHARS, cutLine >= 0 ? cutLine : SHOWN_CHARS);
  const shown = h('span', null, `${text.slice(0, cut)}…`);
  const button = h('button', { type: 'button', class: 'link unfold' }, `Show all (${text.length.toLocaleString('en')} characters)`);
  let open = false;
  button.addEventListener('click', () => {
    open = !open;
    shown.textContent = open ? text : `${text.slice(0, cut)}…`;
    button.textContent = open ? 'Fold' : `Show all (${text.length.toLocaleString('en')} characters)`;
    el.classList.toggle('unfolded', open);
  });
  el.classList.add('folded');
  el.append(shown, document.createElement('br'), button);
  return el;
}

const IMAGE_TYPES = /^image\/(?:png|jpeg|gif|webp)$/;
const BASE64 = /^[A-Za-z0-9+/=\s]*$/;
const DATA_URL = /^data:(image\/[a-z+.-]+);base64,/;

/** Inline images as thumbnails (the page's CSP allows data: images and nothing remote); others named. */
function image(source: Ir.ImageSource): HTMLElement {
  let mediaType: string | undefined;
  let data: string | undefined;
  if (source.kind === 'base64') {
    mediaType = source.mediaType;
    data = source.data;
  } else if (source.kind === 'url') {
    const m = DATA_URL.exec(source.url);
    if (m) {
      mediaType = m[1];
      data = source.url.slice(m[0].length);
    } else {
      return h('div', { class: 'image-note muted' }, `Image at ${source.url.slice(0, 300)} (not loaded: the page fetches nothing outside the gateway)`);
    }
  } else {
    return h('div', { class: 'image-note muted' }, `Image file ${source.fileId}`);
  }
  if (!mediaType || !IMAGE_TYPES.test(mediaType) || data === undefined || !BASE64.test(data)) {
    return h('div', { class: 'image-note muted' }, `Image (${mediaType ?? 'unknown type'}, not shown)`);
  }
  const img = h('img', { class: 'thumb', alt: `image (${mediaType}, ${Math.round((data.length * 3) / 4).toLocaleString('en')} bytes)`, src: `data:${mediaType};base64,${data}` });
  return h('div', { class: 'image' }, img);
}

function fileNote(p: Ir.FilePart): HTMLElement {
  const what = [p.filename, p.mediaType, p.fileId, p.url?.slice(0, 200)].filter(Boolean).join(' · ');
  return h('div', { class: 'file-note muted' }, `File: ${what || 'inline'}`, p.text ? foldedText(p.text) : null);
}
