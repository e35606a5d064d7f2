/**
 * A streamed answer put together for `--verbose`: its text, its thinking folded to its first line,
 * its tool calls with their arguments, as `translate/read-answer.ts` folds the stream with the
 * protocol's own codec. What the model wrote is hostile: every line is escaped, and long texts,
 * long arguments and long lists are cut, saying how much was left out.
 */
import type { ChalkInstance } from 'chalk';
import { assertNever } from '../assert-never.js';
import type * as Ir from '../translate/ir.js';
import type { ReadAnswer } from '../translate/read-answer.js';
import { printable } from './terminal-text.js';

/** Characters and lines of one text shown before the rest is counted. */
const TEXT_CHARS = 2000;
const TEXT_LINES = 30;
/** Characters of thinking's first line, and of a tool call's arguments. */
const THINKING_CHARS = 120;
const ARGUMENT_CHARS = 400;
/** Parts shown before the rest are counted. */
const PARTS_SHOWN = 50;

/** Every part's label, padded to one width so the texts line up. */
const LABEL_WIDTH = 'tool call '.length;
const CONTINUED = ' '.repeat(LABEL_WIDTH);

const more = (n: number, what: string) => ` … (+${n} ${what})`;

/** The title's words: how it came and how it ended (`streamed, 12 events, tool_calls`). */
export function answerSummary(a: ReadAnswer): string {
  const events = a.events === undefined ? [] : [`${a.events} event${a.events === 1 ? '' : 's'}`];
  return [a.streamed ? 'streamed' : 'whole', ...events, ...(a.stopReason !== undefined ? [`stop: ${a.stopReason}`] : [])].join(', ');
}

/** The answer's parts, one labelled block each, and its error last. */
export function answerLines(a: ReadAnswer, c: ChalkInstance): string[] {
  const out: string[] = [];
  let shown = 0;
  let i = 0;
  for (; i < a.content.length && shown < PARTS_SHOWN; i++) {
    const lines = partLines(a.content[i]!, c);
    if (lines.length === 0) continue;
    for (const l of lines) out.push(l);
    shown++;
  }
  const left = a.content.length - i;
  if (left > 0) out.push(`${c.gray(`… ${left} more part${left === 1 ? '' : 's'}`)}`);
  if (out.length === 0 && a.error === undefined) out.push(`${c.gray('(no content)')}`);
  if (a.error !== undefined) out.push(`${c.red(`✗ ${cutText(a.error, ARGUMENT_CHARS)}`)}`);
  return out;
}

/** One part's lines; none for an empty one (Chat's opening `""`, say). */
function partLines(part: Ir.AssistantPart, c: ChalkInstance): string[] {
  const label = (text: string) => c.gray(text.padEnd(LABEL_WIDTH));
  switch (part.type) {
    case 'text':
    case 'refusal': {
      if (part.text === '') return [];
      const [first = '', ...lines] = textLines(part.text);
      return [`${label(part.type)}${first}`, ...lines.map((l) => `${CONTINUED}${l}`)];
    }
    case 'reasoning':
      if (part.text !== '') return [`${label('thinking')}${c.gray(firstLine(part.text))}`];
      return part.redacted !== undefined ? [`${label('thinking')}${c.gray('(redacted)')}`] : [];
    case 'tool_call': {
      const name = part.namespace !== undefined ? `${part.namespace}.${part.name}` : part.name;
      return [`${label('tool call')}${c.bold(printable(name))} ${cutText(part.arguments, ARGUMENT_CHARS)}`];
    }
    default:
      return assertNever(part);
  }
}

/** One line of a text, cut and escaped: its first line only is ever shown for thinking. */
function firstLine(text: string): string {
  const end = text.indexOf('\n');
  const line = end === -1 ? text : text.slice(0, end);
  const cut = line.length > THINKING_CHARS ? line.slice(0, THINKING_CHARS) : line;
  const rest = text.length - cut.length;
  return `${printable(cut)}${rest > 0 ? more(rest, 'chars') : ''}`;
}

/** A value on one line, escaped (its line breaks as `\n`), cut at `max` characters. */
function cutText(text: string, max: number): string {
  return text.length > max ? `${printable(text.slice(0, max))}${more(text.length - max, 'chars')}` : printable(text);
}

/** A text's lines, each escaped, within TEXT_CHARS and TEXT_LINES; what is left out is counted on the last. */
function textLines(text: string): string[] {
  const head = text.length > TEXT_CHARS ? text.slice(0, TEXT_CHARS) : text;
  const lines = head.split('\n');
  const kept = lines.length > TEXT_LINES ? lines.slice(0, TEXT_LINES) : lines;
  let keptChars = kept.length - 1;
  for (const l of kept) keptChars += l.length;
  const out = kept.map((l) => printable(l));
  const left = text.length - keptChars;
  if (left > 0) out[out.length - 1] += more(left, 'chars');
  return out;
}
