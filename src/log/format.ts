/** One coloured line per request (hono-logger style: status coloured by class); the detail --verbose prints under it is detail.ts's. */
import type { ChalkInstance } from 'chalk';
import type { Cost } from '../cost/cost.js';
import type { Usage } from '../protocols/types.js';
import type { RequestRecord } from './record.js';
import { formatRoute } from './route.js';
import { printable } from './terminal-text.js';

const pad2 = (n: number) => String(n).padStart(2, '0');

/** The local time of day, worked out once per second (local-time getters are slow, and lines come in thousands). */
let clockSecond = NaN;
let clockText = '';
function clock(epochMs: number): string {
  const second = Math.floor(epochMs / 1000);
  if (second !== clockSecond) {
    const d = new Date(epochMs);
    clockText = `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
    clockSecond = second;
  }
  return clockText;
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(2)}s`;
}

/** A duration coloured by how long a client waited: under a second, under ten, or longer. */
function colourDuration(c: ChalkInstance, ms: number): string {
  const text = formatDuration(ms);
  return ms < 1000 ? c.green(text) : ms < 10_000 ? c.yellow(text) : c.red(text);
}

/** A phrase of the dropped list as the line shows it: its first words, the rest under --verbose. */
const DROPPED_PHRASE_CHARS = 48;

/** What translation dropped, named: the first phrase and how many more (`dropped metadata +2`). */
export function formatDropped(warnings: readonly string[] | undefined): string | undefined {
  if (!warnings?.length) return undefined;
  const distinct = [...new Set(warnings)];
  const first = distinct[0]!;
  const shown = first.length > DROPPED_PHRASE_CHARS ? `${first.slice(0, DROPPED_PHRASE_CHARS - 1)}…` : first;
  return `dropped ${printable(shown)}${distinct.length > 1 ? ` +${distinct.length - 1}` : ''}`;
}

/** An error longer than this goes on a line of its own under the request's, so the line keeps its columns. */
const ERROR_ON_LINE_CHARS = 100;

function colourStatus(c: ChalkInstance, status: number | undefined, aborted: boolean | undefined): string {
  if (aborted && (status === undefined || status < 400)) return c.gray(status === undefined ? 'abort' : `${status}✂`);
  if (status === undefined) return c.gray('---');
  const s = String(status);
  if (status >= 500) return c.red.bold(s);
  if (status >= 400) return c.yellow.bold(s);
  if (status >= 300) return c.cyan(s);
  return c.green(s);
}

export function formatTokens(usage: Usage | undefined): string | undefined {
  if (!usage || (usage.inputTokens === undefined && usage.outputTokens === undefined)) return undefined;
  const cached = usage.cachedTokens ? ` (${usage.cachedTokens} cached)` : '';
  return `in ${usage.inputTokens ?? '?'}${cached} out ${usage.outputTokens ?? '?'}`;
}

/** Dollars to the cent, or to the millionth below a cent (most single requests cost less). */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (usd >= 0.01) return `$${usd.toFixed(2)}`;
  if (usd < 0.000001) return '<$0.000001';
  return `$${usd.toFixed(6).replace(/0+$/, '')}`;
}

/** A request's cost for the line: its dollars, or "no price" (never a zero it does not know). */
export function formatCost(cost: Cost | undefined): string | undefined {
  if (cost === undefined) return undefined;
  return cost.usd === null ? 'no price' : formatUsd(cost.usd);
}

export function formatLine(r: RequestRecord, c: ChalkInstance): string {
  // Built as one string rather than an array joined: a line per request, formatted in batches of hundreds.
  let line = `${c.gray(clock(r.startedAt))} ${colourStatus(c, r.status, r.aborted)} ${c.bold(printable(r.method))} ${printable(r.path)}`;
  // A WebSocket message is logged as the POST it stands for; the line says it was not one.
  if (r.transport) line += ` ${c.gray(`(${r.transport})`)}`;
  if (r.model) {
    line += ` ${c.cyan(printable(r.model))}`;
    if (r.provider) line += `${c.gray(' → ')}${printable(`${r.provider}/${r.upstreamModel ?? r.model}`)}`;
    // Named, never shown: the credential of a provider with several.
    if (r.credential) line += ` ${c.gray(`with ${printable(r.credential)}`)}`;
    if (r.protocol && r.upstreamProtocol && r.protocol !== r.upstreamProtocol) {
      line += ` ${c.blue(`[${r.protocol}→${r.upstreamProtocol}]`)}`;
    }
  }
  const route = formatRoute(r);
  if (route) line += ` ${c.yellow(`via ${printable(route)}`)}`;
  if (r.keyGroup) line += ` ${c.magenta(printable(`${r.keyGroup}:${r.keyName ?? r.keyId ?? '?'}`))}`;
  // A subagent's requests interleave with its session's: the line says whose they are.
  if (r.agentId) line += ` ${c.gray(`agent ${printable(r.agentId)}`)}`;
  if (r.durationMs !== undefined) line += ` ${colourDuration(c, r.durationMs)}`;
  if (r.stream && r.ttfbMs !== undefined) line += ` ${c.gray(`ttfb ${formatDuration(r.ttfbMs)}`)}`;
  else if (r.stream) line += ` ${c.gray('stream')}`;
  const tokens = formatTokens(r.usage);
  if (tokens) line += ` ${c.gray(tokens)}`;
  const cost = formatCost(r.cost);
  if (cost) line += ` ${c.green(cost)}`;
  const dropped = formatDropped(r.warnings);
  if (dropped) line += ` ${c.yellow(dropped)}`;
  if (r.aborted) line += ` ${c.gray('client closed')}`;
  if (r.error) {
    const error = printable(r.error);
    line += error.length > ERROR_ON_LINE_CHARS ? `\n    ${c.red(`✗ ${error}`)}` : ` ${c.red(`✗ ${error}`)}`;
  }
  return line;
}
