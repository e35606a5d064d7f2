/**
 * Aligned plain-text tables for the CLI (`check`, `models`). Cells may already
 * be coloured: widths are measured without ANSI escapes, so colour never shifts
 * a column.
 */
import type { ChalkInstance } from 'chalk';

export interface Column<Row> {
  readonly header: string;
  readonly cell: (row: Row) => string;
}

// SGR sequences only: that is all chalk writes.
const ANSI = /\u001b\[[0-9;]*m/g;

/** How many terminal columns `text` takes (ANSI colour codes take none). */
export function visibleWidth(text: string): number {
  return [...text.replace(ANSI, '')].length;
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - visibleWidth(text)));
}

/**
 * One header line (bold) and one line per row, columns separated by two spaces, the last
 * column unpadded so no line ends in blanks. An empty table is its header alone.
 */
export function formatTable<Row>(columns: readonly Column<Row>[], rows: readonly Row[], c: ChalkInstance, indent = '  '): string {
  const cells = rows.map((row) => columns.map((col) => col.cell(row).replace(/\n/g, ' ')));
  const widths = columns.map((col, i) => Math.max(visibleWidth(col.header), ...cells.map((r) => visibleWidth(r[i] ?? ''))));
  const line = (texts: readonly string[]) =>
    indent + texts.map((t, i) => (i === texts.length - 1 ? t : pad(t, widths[i] ?? 0))).join('  ').trimEnd();
  const lines = [line(columns.map((col) => c.bold(col.header))), ...cells.map(line)];
  return `${lines.join('\n')}\n`;
}
