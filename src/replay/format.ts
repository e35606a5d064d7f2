/**
 * A comparison as text: one heading per replayed exchange, then one labelled
 * line per aspect, `same: …` when both runs agree and the two values one above
 * the other when they do not. The verdict line says what decided it.
 */
import type { ChalkInstance } from 'chalk';
import { printable, printableJson } from '../log/terminal-text.js';
import type { Usage } from '../translate/ir.js';
import type { Comparison } from './compare.js';
import type { Difference } from './json-diff.js';
import type { Summary, ToolCallSummary } from './summary.js';

/** Longest text shown per value before it is cut. */
const TEXT_LIMIT = 200;
/** Event runs and body differences shown before the rest is counted. */
const LIST_LIMIT = 40;

export interface Heading {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly model?: string;
  readonly stream?: boolean;
  readonly line: number;
}

export function formatHeading(h: Heading, c: ChalkInstance, modelOverride?: string): string {
  // A recording's fields are as hostile as the traffic they recorded: every one is escaped.
  const model =
    h.model === undefined
      ? ''
      : `  ${c.cyan(printable(String(h.model)))}${modelOverride !== undefined && modelOverride !== h.model ? ` → ${c.cyan(printable(modelOverride))}` : ''}`;
  return `${c.bold(printable(h.id))}  ${printable(h.method)} ${printable(h.path)}${model}${h.stream ? c.gray('  stream') : ''}  ${c.gray(`(line ${h.line})`)}\n`;
}

export function formatSkip(reason: string, c: ChalkInstance): string {
  return `  ${c.yellow('– skipped:')} ${printable(reason)}\n`;
}

/** An exchange not sent because it could have gone elsewhere than the gateway (the reason quotes nothing recorded). */
export function formatRefusal(reason: string, c: ChalkInstance): string {
  return `  ${c.red('✗ refused:')} ${printable(reason)}, so it was not sent\n`;
}

const cut = (text: string) => (text.length > TEXT_LIMIT ? `${text.slice(0, TEXT_LIMIT)}… (+${text.length - TEXT_LIMIT} chars)` : text);
const quote = (text: string) => cut(printableJson(text));
const value = (v: unknown) => (v === undefined ? 'undefined' : cut(printableJson(v)));
/** Text shown as it is (no quotes), cut, then escaped: cut first, so no escape is cut in half. */
const plain = (text: string) => printable(cut(text));

/** Runs of one event type shown once with a count: `content_block_delta ×3`. */
export function eventRuns(types: readonly string[]): string {
  const runs: string[] = [];
  let i = 0;
  while (i < types.length && runs.length < LIST_LIMIT) {
    let j = i;
    while (j < types.length && types[j] === types[i]) j++;
    runs.push(j - i > 1 ? `${printable(types[i]!)} ×${j - i}` : printable(types[i]!));
    i = j;
  }
  return runs.join(' ') + (i < types.length ? ` … ${types.length - i} more` : '');
}

const label = (name: string) => `  ${name.padEnd(8)} `;
const INDENT = ' '.repeat(11);

/** One aspect: `same: x`, or recorded and replayed one above the other. */
function aspect(name: string, recorded: string, replayed: string, c: ChalkInstance): string {
  if (recorded === replayed) return `${label(name)}${c.gray('same:')} ${recorded}\n`;
  return `${label(name)}${c.gray('recorded:')} ${recorded}\n${INDENT}${c.yellow('replayed:')} ${replayed}\n`;
}

const tools = (calls: readonly ToolCallSummary[]) => calls.map((t) => `${printable(t.name)}(${plain(t.arguments)})`).join(', ');

function usageLine(a: Usage | undefined, b: Usage | undefined, c: ChalkInstance): string {
  if (!a && !b) return '';
  const pair = (name: string, x: number | undefined, y: number | undefined) =>
    x === undefined && y === undefined ? [] : [`${name} ${x ?? '?'} → ${y ?? '?'}`];
  const cells = [
    ...pair('in', a?.inputTokens, b?.inputTokens),
    ...pair('out', a?.outputTokens, b?.outputTokens),
    ...(a?.cacheReadTokens || b?.cacheReadTokens ? pair('cached', a?.cacheReadTokens, b?.cacheReadTokens) : []),
  ];
  return `${label('usage')}${c.gray(printable(cells.join(' · ')))}\n`;
}

function summaryLines(a: Summary, b: Summary, stream: boolean, c: ChalkInstance): string {
  let out = '';
  if (stream || a.eventTypes || b.eventTypes) {
    const events = (s: Summary) => (s.eventTypes ? `(${s.eventTypes.length}) ${eventRuns(s.eventTypes)}` : 'not a stream');
    out += aspect('events', events(a), events(b), c);
  }
  if (a.text !== '' || b.text !== '') out += aspect('text', quote(a.text), quote(b.text), c);
  if (a.toolCalls.length > 0 || b.toolCalls.length > 0) out += aspect('tools', tools(a.toolCalls) || 'none', tools(b.toolCalls) || 'none', c);
  if (a.stopReason !== undefined || b.stopReason !== undefined) out += aspect('stop', plain(a.stopReason ?? 'none'), plain(b.stopReason ?? 'none'), c);
  if (a.error !== undefined || b.error !== undefined) out += aspect('error', plain(a.error ?? 'none'), plain(b.error ?? 'none'), c);
  return out + usageLine(a.usage, b.usage, c);
}

function differenceLine(d: Difference, c: ChalkInstance): string {
  // The path is printable already: identifiers, and other keys quoted by printableJson.
  const path = d.path === '' ? '(the whole body)' : d.path;
  switch (d.kind) {
    case 'changed':
      return `${c.yellow('~')} ${path}: ${value(d.before)} → ${value(d.after)}`;
    case 'added':
      return `${c.green('+')} ${path}: ${value(d.after)}`;
    case 'removed':
      return `${c.red('-')} ${path}: ${value(d.before)}`;
  }
}

export function formatComparison(cmp: Comparison, c: ChalkInstance): string {
  const status = (s: number | undefined) => (s === undefined ? 'none' : printable(String(s)));
  const statusSame = cmp.recorded.status === cmp.replayed.status;
  let out = `${label('status')}${status(cmp.recorded.status)} → ${statusSame ? c.green(status(cmp.replayed.status)) : c.red(status(cmp.replayed.status))}\n`;
  if (cmp.summaries) out += summaryLines(cmp.summaries.recorded, cmp.summaries.replayed, cmp.stream, c);
  if (cmp.recorded.body.json !== undefined && cmp.replayed.body.json !== undefined) {
    const n = cmp.differences.length;
    if (n === 0) out += `${label('body')}${c.gray('same (ids, timestamps and usage not compared)')}\n`;
    else {
      out += `${label('body')}${c.yellow(`${n} difference${n === 1 ? '' : 's'}`)} ${c.gray('(ids, timestamps and usage not compared)')}\n`;
      for (const d of cmp.differences.slice(0, LIST_LIMIT)) out += `${INDENT}${differenceLine(d, c)}\n`;
      if (n > LIST_LIMIT) out += `${INDENT}… ${n - LIST_LIMIT} more\n`;
    }
  }
  if (cmp.problems.length > 0) return `${out}  ${c.red('✗')} ${printable(cmp.problems.join('; '))}\n`;
  return `${out}  ${c.green('✓')} ${cmp.stream ? 'same status, and the stream ended' : 'same status'}\n`;
}
