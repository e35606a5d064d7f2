import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { formatTable, visibleWidth } from './table.js';

const plain = new Chalk({ level: 0 });
const colour = new Chalk({ level: 2 });

describe('formatTable', () => {
  const columns = [
    { header: 'name', cell: (r: { name: string; n: number }) => r.name },
    { header: 'n', cell: (r: { name: string; n: number }) => String(r.n) },
    { header: 'last', cell: () => '' },
  ];

  it('aligns columns to the widest cell and leaves no trailing blanks', () => {
    const text = formatTable(columns, [{ name: 'a', n: 100 }, { name: 'longer', n: 2 }], plain);
    expect(text).toBe(['  name    n    last', '  a       100', '  longer  2', ''].join('\n'));
  });

  it('measures coloured cells without their escape codes', () => {
    const coloured = [{ header: 'x', cell: (r: string) => colour.red(r) }, { header: 'y', cell: () => 'end' }];
    const lines = formatTable(coloured, ['ab', 'abcd'], colour).split('\n');
    const stripped = lines.map((l) => l.replace(/\u001b\[[0-9;]*m/g, ''));
    expect(stripped.slice(0, 3)).toEqual(['  x     y', '  ab    end', '  abcd  end']);
    expect(lines[1]).toContain('\u001b[31m');
  });

  it('prints the header alone for no rows, and keeps a row on one line', () => {
    expect(formatTable(columns, [], plain)).toBe('  name  n  last\n');
    expect(formatTable([{ header: 'h', cell: () => 'two\nlines' }], [1], plain)).toBe('  h\n  two lines\n');
  });

  it('visibleWidth counts code points, not escapes', () => {
    expect(visibleWidth(colour.green('→ chat'))).toBe(6);
  });
});
