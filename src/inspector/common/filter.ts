/** The list's filters: free text over the row's facts, a status class, a model, a key group. */
import type { ExchangeSummary } from './types.js';

export type StatusFilter = 'all' | '2xx' | '4xx' | '5xx' | 'failed' | 'pending';

export interface Filter {
  readonly text: string;
  readonly status: StatusFilter;
  /** A requested model name, or '' for any. */
  readonly model: string;
  /** A key group, or '' for any. */
  readonly group: string;
}

export const NO_FILTER: Filter = { text: '', status: 'all', model: '', group: '' };

export function failed(s: ExchangeSummary): boolean {
  return (s.status !== undefined && s.status >= 400) || s.error !== undefined || s.aborted === true;
}

function statusMatches(s: ExchangeSummary, f: StatusFilter): boolean {
  switch (f) {
    case 'all':
      return true;
    case 'pending':
      return s.pending === true;
    case 'failed':
      return failed(s);
    default: {
      const base = Number(f[0]) * 100;
      return s.status !== undefined && s.status >= base && s.status < base + 100;
    }
  }
}

/** Everything the text filter looks in, lower-cased. */
function haystack(s: ExchangeSummary): string {
  return [
    s.id,
    s.method,
    s.path,
    s.status,
    s.client?.label,
    s.sessionId,
    s.keyGroup,
    s.keyName,
    s.model,
    s.provider,
    s.upstreamModel,
    s.protocol,
    s.upstreamProtocol,
    s.translated ? 'translated' : 'native',
    s.servedBy,
    s.retries ? 'retried' : undefined,
    s.servedBy ? 'fallback' : undefined,
    s.error,
    s.preview,
  ]
    .filter((v) => v !== undefined)
    .join(' ')
    .toLowerCase();
}

/** `bodyHits`: the exchanges whose bodies hold the text (the server's search), which match whatever their row says. */
export function matches(s: ExchangeSummary, f: Filter, bodyHits?: ReadonlySet<string>): boolean {
  if (!statusMatches(s, f.status)) return false;
  if (f.model !== '' && s.model !== f.model) return false;
  if (f.group !== '' && s.keyGroup !== f.group) return false;
  const text = f.text.trim().toLowerCase();
  if (text === '') return true;
  if (bodyHits?.has(s.id)) return true;
  const hay = haystack(s);
  // Every word must occur somewhere: "codex 500" finds Codex's failures.
  return text.split(/\s+/).every((w) => hay.includes(w));
}
