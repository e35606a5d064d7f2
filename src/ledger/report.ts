/**
 * The usage report: ledger entries summed by one dimension (a day in the report's time zone, a key
 * group, a key, a model, a provider or a session) into requests, tokens, cost and cache hit rate,
 * and written as a table, JSON or CSV. Entries stream in; memory grows with the rows, not the entries.
 */
import { assertNever } from '../assert-never.js';
import { dayStart, wallAt } from '../budgets/periods.js';
import { type LedgerEntry, shownText } from './entry.js';

export const GROUPINGS = ['day', 'group', 'key', 'model', 'provider', 'session'] as const;
export type Grouping = (typeof GROUPINGS)[number];

export interface UsageRow {
  /** The day (`2026-11-26`), group, key, model, provider or session; `(none)` for requests without a session. */
  readonly name: string;
  requests: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Dollars of the priced requests. */
  usd: number;
  /** Requests whose cost is unknown (a model without a price, or no token counts reported), not zero. */
  unpriced: number;
}

export interface UsageTotals {
  readonly rows: UsageRow[];
  readonly total: UsageRow;
}

const newRow = (name: string): UsageRow => ({ name, requests: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, usd: 0, unpriced: 0 });

function add(row: UsageRow, e: LedgerEntry): void {
  row.requests++;
  row.input += e.input;
  row.output += e.output;
  row.cacheRead += e.cacheRead;
  row.cacheWrite += e.cacheWrite;
  if (e.usd === null) row.unpriced++;
  else row.usd += e.usd;
}

/**
 * Sums entries as they are read; `done` gives the rows (days in order, the rest dearest first), each
 * named by text safe to print (`shownText`), for the table, the JSON and the CSV alike.
 */
export function usageSummer(by: Grouping, timeZone: string): { add(e: LedgerEntry): void; done(): UsageTotals } {
  const rows = new Map<string, UsageRow>();
  const total = newRow('total');
  // Entries come roughly in time order: the day's bounds are worked out again only when one falls outside.
  let day = { start: 0, end: 0, name: '' };
  const dayOf = (t: number): string => {
    if (t < day.start || t >= day.end) {
      const w = wallAt(timeZone, t);
      const pad = (n: number) => String(n).padStart(2, '0');
      day = { start: dayStart(timeZone, w.y, w.m, w.d), end: dayStart(timeZone, w.y, w.m, w.d + 1), name: `${w.y}-${pad(w.m)}-${pad(w.d)}` };
    }
    return day.name;
  };
  const nameOf = (e: LedgerEntry): string => {
    switch (by) {
      case 'day':
        return dayOf(e.time);
      case 'group':
        return e.group;
      case 'key':
        return `${e.group}:${e.key}`;
      case 'model':
        return e.model;
      case 'provider':
        return e.provider;
      case 'session':
        return e.session ?? '(none)';
      default:
        return assertNever(by);
    }
  };
  return {
    add(e) {
      const name = nameOf(e);
      let row = rows.get(name);
      if (row === undefined) {
        // Rows by the text as written, named as shown: escaped once per row, not per entry.
        row = newRow(by === 'day' ? name : shownText(name));
        rows.set(name, row);
      }
      add(row, e);
      add(total, e);
    },
    done() {
      const list = [...rows.values()];
      if (by === 'day') list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      else list.sort((a, b) => b.usd - a.usd || b.requests - a.requests);
      return { rows: list, total };
    },
  };
}

/** The share of input tokens read from the cache; undefined with no input. */
export const cacheHitRate = (r: UsageRow): number | undefined => (r.input > 0 ? r.cacheRead / r.input : undefined);

const CSV_COLUMNS = ['name', 'requests', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'cache_hit_rate', 'usd', 'unpriced_requests'] as const;

/**
 * The rows as CSV, the total last. A text cell that a spreadsheet would run as a formula (starting
 * with = + - @, a tab or a carriage return) is prefixed with an apostrophe; a cell holding a comma,
 * a quote or a line break is quoted.
 */
export function usageCsv(t: UsageTotals, by: Grouping): string {
  const lines = [[by, ...CSV_COLUMNS.slice(1)].join(',')];
  for (const r of [...t.rows, t.total]) {
    const rate = cacheHitRate(r);
    lines.push(
      [csvText(r.name), r.requests, r.input, r.output, r.cacheRead, r.cacheWrite, rate === undefined ? '' : rate.toFixed(4), r.usd.toFixed(6), r.unpriced].join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

export function csvText(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The rows as JSON (one object; `cacheHitRate` null with no input). */
export function usageJson(t: UsageTotals, meta: { by: Grouping; from: number; to: number; timeZone: string; skippedLines: number }): string {
  const row = (r: UsageRow) => ({
    name: r.name,
    requests: r.requests,
    inputTokens: r.input,
    outputTokens: r.output,
    cacheReadTokens: r.cacheRead,
    cacheWriteTokens: r.cacheWrite,
    cacheHitRate: cacheHitRate(r) ?? null,
    usd: r.usd,
    unpricedRequests: r.unpriced,
  });
  return `${JSON.stringify(
    {
      by: meta.by,
      from: new Date(meta.from).toISOString(),
      to: new Date(meta.to).toISOString(),
      timeZone: meta.timeZone,
      rows: t.rows.map(row),
      total: row(t.total),
      skippedLines: meta.skippedLines,
    },
    null,
    2,
  )}\n`;
}
