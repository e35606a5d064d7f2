/**
 * `model-gateway usage`: what went through the gateway, from its usage ledger (`<dataDir>/usage/`):
 * requests, tokens with cache reads and writes, cost and cache hit rate, by day, key group, key,
 * model, provider or session, over the current month, a given month or the last days. Reads the
 * ledger as hostile text; prints escaped text, or JSON, or CSV safe to open in a spreadsheet.
 */
import { homedir } from 'node:os';
import { machineTimeZone, dayStart, wallAt } from '../../budgets/periods.js';
import { loadConfig } from '../../config/load.js';
import { ExitError } from '../../errors.js';
import { readLedger } from '../../ledger/read.js';
import { cacheHitRate, type Grouping, GROUPINGS, type UsageRow, usageCsv, usageJson, usageSummer } from '../../ledger/report.js';
import { formatUsd } from '../../log/format.js';
import { printable } from '../../log/terminal-text.js';
import { dataDir, ledgerDir } from '../../storage/data-dir.js';
import { chalkFor } from '../colour.js';
import type { CliIo } from '../io.js';
import { formatTable, type Column } from '../table.js';

export interface UsageFlags {
  since?: string;
  month?: string;
  by?: string;
  json?: boolean;
  csv?: boolean;
  config?: string;
  color: boolean;
}

const UNITS: Readonly<Record<string, number>> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** The range asked for: `--since 7d` (hours, days or weeks back from now), `--month 2026-11`, else this month. */
export function usageRange(flags: Pick<UsageFlags, 'since' | 'month'>, timeZone: string, now: number): { from: number; to: number } {
  if (flags.since !== undefined && flags.month !== undefined) throw new ExitError('Give --since or --month, not both.', 2);
  if (flags.since !== undefined) {
    const m = /^(\d{1,5})([hdw])$/.exec(flags.since);
    if (!m) throw new ExitError(`--since: expected a count and a unit, like 24h, 7d or 2w; got ${JSON.stringify(printable(flags.since))}.`, 2);
    return { from: now - Number(m[1]) * UNITS[m[2]!]!, to: now + 1 };
  }
  if (flags.month !== undefined) {
    const m = /^(\d{4})-(\d{2})$/.exec(flags.month);
    const month = m ? Number(m[2]) : 0;
    if (!m || month < 1 || month > 12) throw new ExitError(`--month: expected a year and month, like 2026-11; got ${JSON.stringify(printable(flags.month))}.`, 2);
    return { from: dayStart(timeZone, Number(m[1]), month, 1), to: dayStart(timeZone, Number(m[1]), month + 1, 1) };
  }
  const w = wallAt(timeZone, now);
  return { from: dayStart(timeZone, w.y, w.m, 1), to: now + 1 };
}

export async function usage(flags: UsageFlags, io: CliIo): Promise<void> {
  const by = (flags.by ?? 'model') as Grouping;
  if (!GROUPINGS.includes(by)) throw new ExitError(`--by: one of ${GROUPINGS.join(', ')}; got ${JSON.stringify(printable(String(flags.by)))}.`, 2);
  if (flags.json && flags.csv) throw new ExitError('Give --json or --csv, not both.', 2);
  const { config } = await loadConfig({ ...(flags.config !== undefined ? { configPath: flags.config } : {}), cwd: io.cwd, env: io.env });
  const timeZone = config.server.timeZone ?? machineTimeZone();
  const range = usageRange(flags, timeZone, Date.now());
  const dir = ledgerDir(dataDir({ configured: config.server.dataDir, env: io.env, platform: process.platform, home: homedir() }));
  const summer = usageSummer(by, timeZone);
  const read = await readLedger(dir, range, (e) => summer.add(e));
  const totals = summer.done();
  if (flags.json) {
    io.stdout.write(usageJson(totals, { by, ...range, timeZone, skippedLines: read.skipped }));
    return;
  }
  if (flags.csv) {
    io.stdout.write(usageCsv(totals, by));
    return;
  }
  const c = chalkFor(io.stdout, io.env, flags.color);
  const day = (t: number) => {
    const w = wallAt(timeZone, t);
    return `${w.y}-${String(w.m).padStart(2, '0')}-${String(w.d).padStart(2, '0')}`;
  };
  io.stdout.write(`Usage by ${by}, ${day(range.from)} to ${day(range.to - 1)} (${printable(timeZone)}), from ${printable(dir)}\n`);
  if (read.skipped > 0) io.stdout.write(c.yellow(`  ${read.skipped} lines of the ledger were not entries and were skipped\n`));
  if (totals.total.requests === 0) {
    io.stdout.write(`  ${c.gray('no requests in this range')}\n`);
    return;
  }
  const count = (n: number) => n.toLocaleString('en-US');
  const columns: Column<UsageRow>[] = [
    // Row names are escaped when the report makes them (ledger/report.ts); escaped again they would show their backslashes twice.
    { header: by, cell: (r) => (r === totals.total ? c.bold('total') : r.name) },
    { header: 'requests', cell: (r) => count(r.requests) },
    { header: 'input', cell: (r) => count(r.input) },
    { header: 'output', cell: (r) => count(r.output) },
    { header: 'cache read', cell: (r) => count(r.cacheRead) },
    { header: 'cache write', cell: (r) => count(r.cacheWrite) },
    { header: 'cache hit', cell: (r) => {
      const rate = cacheHitRate(r);
      return rate === undefined ? c.gray('—') : `${(rate * 100).toFixed(1)}%`;
    } },
    { header: 'cost', cell: (r) => `${formatUsd(r.usd)}${r.unpriced > 0 ? c.yellow(` + ${r.unpriced} without a known cost`) : ''}` },
  ];
  io.stdout.write(formatTable(columns, [...totals.rows, totals.total], c));
}
