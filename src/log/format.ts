/** One coloured line per request (hono-logger style: status coloured by class), and its JSON form. */
import type { ChalkInstance } from 'chalk';
import type { Usage } from '../protocols/types.js';
import type { RequestRecord } from './record.js';
import { redactHeaders, truncateStrings } from './redact.js';

const pad2 = (n: number) => String(n).padStart(2, '0');

function clock(epochMs: number): string {
  const d = new Date(epochMs);
  return `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(2)}s`;
}

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

export function formatLine(r: RequestRecord, c: ChalkInstance): string {
  const parts = [c.gray(clock(r.startedAt)), colourStatus(c, r.status, r.aborted), c.bold(r.method), r.path];
  if (r.model) {
    const upstream = r.provider ? `${r.provider}/${r.upstreamModel ?? r.model}` : undefined;
    parts.push(c.cyan(r.model) + (upstream ? c.gray(' → ') + upstream : ''));
    if (r.protocol && r.upstreamProtocol && r.protocol !== r.upstreamProtocol) {
      parts.push(c.blue(`[${r.protocol}→${r.upstreamProtocol}]`));
    }
  }
  if (r.keyGroup) parts.push(c.magenta(`${r.keyGroup}:${r.keyName ?? r.keyId ?? '?'}`));
  if (r.durationMs !== undefined) parts.push(c.yellow(formatDuration(r.durationMs)));
  if (r.stream && r.ttfbMs !== undefined) parts.push(c.gray(`ttfb ${formatDuration(r.ttfbMs)}`));
  const tokens = formatTokens(r.usage);
  if (tokens) parts.push(c.gray(tokens));
  if (r.warnings?.length) parts.push(c.yellow(`${new Set(r.warnings).size} dropped`));
  if (r.aborted) parts.push(c.gray('client closed'));
  if (r.error) parts.push(c.red(`✗ ${r.error}`));
  return parts.join(' ');
}

const STRING_LIMIT = 400;

/** The indented blocks `--verbose` prints under the line. */
export function formatDetail(r: RequestRecord, c: ChalkInstance): string {
  const d = r.detail;
  if (!d) return '';
  const block = (title: string, value: unknown) =>
    `  ${c.gray(title)}\n${JSON.stringify(value, null, 2)
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n')}\n`;
  let out = '';
  if (d.requestHeaders) out += block('→ request headers', redactHeaders(d.requestHeaders));
  if (d.requestBody !== undefined) out += block('→ request body', truncateStrings(d.requestBody, STRING_LIMIT));
  if (r.warnings?.length) out += block('⚠ dropped or approximated in translation', [...new Set(r.warnings)]);
  if (d.upstreamRequestBody !== undefined) out += block('⇢ upstream request body', truncateStrings(d.upstreamRequestBody, STRING_LIMIT));
  if (d.upstreamResponseBody !== undefined) out += block('⇠ upstream response body', truncateStrings(d.upstreamResponseBody, STRING_LIMIT));
  if (d.responseHeaders) out += block('← response headers', redactHeaders(d.responseHeaders));
  if (d.responseBody !== undefined) out += block('← response body', truncateStrings(d.responseBody, STRING_LIMIT));
  if (d.upstreamError) out += block('← upstream error', truncateStrings(d.upstreamError, 2000));
  return out;
}

/** The log-file form: the same facts as the line, plus the captured detail when verbose. */
export function toJsonEntry(r: RequestRecord): Record<string, unknown> {
  const { start: _start, startedAt, detail, ...facts } = r;
  const entry: Record<string, unknown> = { time: new Date(startedAt).toISOString(), ...facts };
  if (detail) {
    entry.detail = {
      ...detail,
      requestHeaders: detail.requestHeaders && redactHeaders(detail.requestHeaders),
      responseHeaders: detail.responseHeaders && redactHeaders(detail.responseHeaders),
    };
  }
  return entry;
}
