/**
 * `model-gateway usage` on a generated ledger, through `run(argv, io)` in-process: every grouping in
 * every format, the ranges, and hostile ledger text (formula cells, terminal escapes, bad lines).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '#src/cli/main.js';
import { GROUPINGS } from '#src/ledger/report.js';

/** A ledger in a data folder, with a config naming it and its zone; `days` back from now. */
function ledger(): { cwd: string; env: Record<string, string> } {
  const cwd = mkdtempSync(join(tmpdir(), 'mgw-usage-'));
  const data = join(cwd, 'data');
  mkdirSync(join(data, 'usage'), { recursive: true });
  writeFileSync(
    join(cwd, 'gateway.config.json'),
    JSON.stringify({ server: { dataDir: data, timeZone: 'UTC' }, providers: { echo: { type: 'echo' } }, models: { echo: { provider: 'echo' } }, keyGroups: {} }),
  );
  const now = Date.now();
  const entry = (daysAgo: number, o: Record<string, unknown>) =>
    JSON.stringify({
      v: 1,
      time: new Date(now - daysAgo * 86_400_000).toISOString(),
      group: 'dev',
      key: 'alice',
      keyId: 'ab12cd34',
      model: 'claude',
      provider: 'anthropic',
      status: 200,
      input: 1000,
      output: 100,
      cacheRead: 600,
      cacheWrite: 200,
      usd: 0.01,
      priced: 'catalogue',
      ...o,
    });
  const lines = [
    entry(0, { session: 's1' }),
    entry(0, { session: 's1', model: 'gpt', provider: 'openai', usd: 0.02, cacheWrite: 0 }),
    entry(1, { group: 'ci', key: '=HYPERLINK("x")', keyId: 'ef56ab78', session: 's2' }),
    entry(2, { model: 'local', provider: 'ollama', usd: null, priced: 'unpriced', cacheRead: 0, cacheWrite: 0 }),
    entry(3, { session: '\u001b]0;pwned\u0007s3' }),
    // As the gateway writes a header's tab and C1 byte (escaped when the request arrived), and a bidi override an edit put there raw.
    entry(3, { session: 'tab\\there\\x85', usd: 0 }),
    entry(3, { session: 'user\u202egnp.exe', usd: 0 }),
    // Far outside a week.
    entry(40, { model: 'old' }),
    'not a ledger line',
    `{"v":1,"pad":"${'x'.repeat(40_000)}"}`,
  ];
  // Spread over the month files the entries' times fall in.
  const byFile = new Map<string, string[]>();
  for (const line of lines) {
    const time = /"time":"([^"]+)"/.exec(line)?.[1] ?? new Date(now).toISOString();
    const file = `${time.slice(0, 7)}.jsonl`;
    byFile.set(file, [...(byFile.get(file) ?? []), line]);
  }
  for (const [file, ls] of byFile) writeFileSync(join(data, 'usage', file), `${ls.join('\n')}\n`);
  return { cwd, env: {} };
}

async function usage(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { cwd, env } = ledger();
  let out = '';
  let err = '';
  const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, env, cwd, stopSignal: () => new Promise<string>(() => {}) };
  const code = await run(['usage', '--no-color', ...args], io);
  return { code, out, err };
}

const WEEK = ['--since', '7d'];

describe('model-gateway usage', () => {
  it.each(GROUPINGS)('--by %s --json: the rows and their total', async (by) => {
    const { code, out } = await usage([...WEEK, '--by', by, '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(out) as { rows: { name: string; requests: number; usd: number }[]; total: Record<string, number>; skippedLines: number };
    expect(report.total).toMatchObject({ requests: 7, inputTokens: 7000, outputTokens: 700, unpricedRequests: 1 });
    expect(report.total.usd).toBeCloseTo(0.05, 9);
    expect(report.total.cacheHitRate).toBeCloseTo(3600 / 7000, 9);
    expect(report.skippedLines).toBe(2);
    expect(report.rows.reduce((n, r) => n + r.requests, 0)).toBe(7);
    const names = report.rows.map((r) => r.name);
    const expected: Record<(typeof GROUPINGS)[number], number> = { day: 4, group: 2, key: 2, model: 3, provider: 3, session: 6 };
    expect(names).toHaveLength(expected[by]);
    if (by === 'day') expect([...names].sort()).toEqual(names);
    // The dearest first: claude's three requests at $0.01.
    if (by === 'model') expect(names[0]).toBe('claude');
  });

  it.each(GROUPINGS)('--by %s --csv: a header, a row each and the total, formula cells defused', async (by) => {
    const { code, out } = await usage([...WEEK, '--by', by, '--csv']);
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\r\n');
    expect(lines[0]).toBe(`${by},requests,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,cache_hit_rate,usd,unpriced_requests`);
    expect(lines.at(-1)).toMatch(/^total,7,7000,700,3600,/);
    for (const line of lines) expect(line).not.toMatch(/(^|,)[=+\-@]/);
    if (by === 'key') expect(out).toContain(`"ci:=HYPERLINK(""x"")"`);
  });

  it.each(GROUPINGS)('--by %s: a table with the total, nothing that drives a terminal', async (by) => {
    const { code, out } = await usage([...WEEK, '--by', by]);
    expect(code).toBe(0);
    expect(out).toContain('total');
    expect(out).toContain('$0.05');
    expect(out).toContain('1 without a known cost');
    expect(out).toContain('2 lines of the ledger were not entries');
    const control = [...out].filter((ch) => {
      const code = ch.charCodeAt(0);
      return (code < 0x20 && ch !== '\n') || (code >= 0x7f && code <= 0x9f);
    });
    expect(control).toEqual([]);
  });

  it.each(['table', '--json', '--csv'])('--by session (%s): ids show as the log line shows them, escaped once, and a raw one escaped', async (format) => {
    const { out } = await usage([...WEEK, '--by', 'session', ...(format === 'table' ? [] : [format])]);
    // JSON writes a backslash as two.
    const shown = (id: string) => (format === '--json' ? JSON.stringify(id).slice(1, -1) : id);
    expect(out).toContain(shown('tab\\there\\x85'));
    expect(out).not.toContain(shown('tab\\\\there'));
    expect(out).toContain(shown('user\\u202egnp.exe'));
    expect(out).toContain(shown('\\x1b]0;pwned\\x07s3'));
    expect(out).not.toMatch(/[\u001b\u0007\u202e]/);
  });

  it('--month reads one calendar month; the default is this month', async () => {
    const month = new Date(Date.now() - 40 * 86_400_000).toISOString().slice(0, 7);
    const { out } = await usage(['--month', month, '--by', 'model', '--json']);
    expect((JSON.parse(out) as { rows: { name: string }[] }).rows.map((r) => r.name)).toContain('old');
    const { out: now } = await usage(['--json']);
    expect((JSON.parse(now) as { rows: { name: string }[] }).rows.map((r) => r.name)).not.toContain('old');
  });

  it.each([
    [['--since', 'forever'], '--since'],
    [['--month', '2026-13'], '--month'],
    [['--by', 'colour'], '--by'],
    [['--since', '7d', '--month', '2026-11'], 'not both'],
    [['--json', '--csv'], 'not both'],
  ])('%j is refused with a message', async (args, text) => {
    const { code, err } = await usage(args);
    expect(code).toBe(2);
    expect(err).toContain(text);
  });
});
