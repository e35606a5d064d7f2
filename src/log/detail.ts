/**
 * What `--verbose` prints under a request's line. At the first level (`-v`, `--verbose`): the
 * headers, with the client's telemetry folded into one line (`telemetry-headers.ts`), the bodies,
 * and a streamed answer put together with its protocol's codec (`answer-text.ts`). At the second
 * (`-vv`): every header as it came and a stream's raw events with their times. Everything here
 * came from a caller or a provider: escaped, and cut where long.
 */
import type { ChalkInstance } from 'chalk';
import type { Protocol } from '../protocols/types.js';
import { readAnswer } from '../translate/read-answer.js';
import { answerLines, answerSummary } from './answer-text.js';
import { exchangeJson, type BodyJson } from './exchange-json.js';
import type { RequestRecord } from './record.js';
import { truncateStrings } from './redact.js';
import { foldTelemetry } from './telemetry-headers.js';
import { printable, printableJson } from './terminal-text.js';

/** How much `serve` prints of each exchange: the line alone, the line and its detail, or the detail raw. */
export type Verbosity = 0 | 1 | 2;

const STRING_LIMIT = 400;
/** Stream events printed by -vv before the rest is summarised. */
const EVENT_LIMIT = 40;
/** Characters of a header's value printed by --verbose. */
const HEADER_CHARS = 200;

/** The indented blocks printed under the line, at `level`. */
export function formatDetail(r: RequestRecord, c: ChalkInstance, level: 1 | 2): string {
  if (!r.exchange) return '';
  const raw = level === 2;
  const x = exchangeJson(r);
  const title = (text: string) => `  ${c.gray(text)}\n`;
  const indented = (lines: readonly string[]) => (lines.length > 0 ? `${lines.map((l) => `    ${l}`).join('\n')}\n` : '');
  const block = (name: string, value: unknown) => title(name) + indented(printableJson(value, 2).split('\n'));
  const headers = (name: string, h: Record<string, unknown>) => {
    if (raw) return block(name, h);
    const { telemetry, rest } = foldTelemetry(h);
    const lines = rest.map(([k, v]) => `${c.gray(`${printable(k)}:`)} ${printable(v.length > HEADER_CHARS ? `${v.slice(0, HEADER_CHARS - 1)}…` : v)}`);
    if (telemetry !== undefined) lines.push(`${c.gray('telemetry:')} ${telemetry}`);
    return title(name) + indented(lines);
  };
  /** A body; a stream in a known protocol is put together unless the raw events are asked for. */
  const body = (name: string, b: BodyJson | undefined, spoken?: { protocol: Protocol | undefined; status: number | undefined }) => {
    if (!b || b.bytes === 0) return '';
    if (b.events) {
      const answer = !raw && spoken?.protocol !== undefined ? readAnswer(spoken.protocol, b, spoken.status) : undefined;
      if (answer) return title(`${name}: ${answerSummary(answer)}`) + indented(answerLines(answer, c));
      const shown = b.events.slice(0, EVENT_LIMIT).map((e) => `${e.t}ms ${printable(e.event ?? '')} ${printableJson(truncateStrings(e.data, 120))}`);
      if (b.events.length > EVENT_LIMIT) shown.push(`… ${b.events.length - EVENT_LIMIT} more events`);
      return title(name) + indented(shown);
    }
    return block(name + (b.truncated ? ' (truncated)' : ''), truncateStrings(b.json ?? b.text, STRING_LIMIT));
  };
  let out = '';
  if (x.request) out += headers('→ request headers', x.request.headers) + body('→ request body', x.request.body);
  if (r.warnings?.length) out += block('⚠ dropped or approximated in translation', [...new Set(r.warnings)]);
  const attempts = x.attempts ?? [];
  attempts.forEach((a, i) => {
    const credential = a.credential ? ` with ${a.credential}` : '';
    const label = attempts.length > 1 ? ` (attempt ${i + 1}: ${printable(`${a.provider}/${a.upstreamModel}${credential}`)}${a.status ? ` ${a.status}` : ''})` : '';
    // The upstream request differs from the client's only when translated (or on a fallback).
    if (a.protocol !== r.protocol || a.model !== r.model) out += body(`⇢ upstream request body${label}`, a.body);
    else if (label) out += title(`⇢ upstream request${label}`);
    if (a.error) out += `  ${c.gray('⇠ upstream failure')} ${printable(a.error)}\n`;
    if (a.status !== undefined && a.status >= 400) out += body(`⇠ upstream error body${label}`, a.response);
    else if (a.protocol !== r.protocol) out += body(`⇠ upstream response${label}`, a.response, { protocol: a.protocol, status: a.status });
  });
  if (x.response?.headers) out += headers('← response headers', x.response.headers);
  out += body('← response body', x.response?.body, { protocol: r.protocol, status: x.response?.status });
  return out;
}
