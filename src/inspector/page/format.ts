/** Numbers and times as the page shows them. */

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

export function clock(epochMs: number): string {
  const d = new Date(epochMs);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function dateTime(epochMs: number): string {
  const d = new Date(epochMs);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clock(epochMs)}.${pad(d.getMilliseconds(), 3)}`;
}

export function duration(ms: number | undefined): string {
  if (ms === undefined) return '';
  return ms < 1000 ? `${Math.round(ms)}ms` : `${(ms / 1000).toFixed(2)}s`;
}

export function tokens(n: number | undefined): string {
  if (n === undefined) return '';
  if (n < 10_000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** Dollars: cents below a dollar keep two significant figures, so a cheap request does not read $0.00. */
export function usd(n: number): string {
  if (n === 0) return '$0';
  if (n < 0.01) return `$${n.toPrecision(2)}`;
  return `$${n.toFixed(2)}`;
}

export const percent = (ratio: number) => `${Math.round(ratio * 100)}%`;

/** A one-line JSON preview, cut. */
export function preview(value: unknown, max = 120): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function statusClass(status: number | undefined): string {
  if (status === undefined) return 'st-none';
  return status >= 500 ? 'st-5xx' : status >= 400 ? 'st-4xx' : status >= 300 ? 'st-3xx' : 'st-2xx';
}
