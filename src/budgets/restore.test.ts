import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/parse.js';
import type { BudgetDecision } from './budget-store.js';
import { createMemoryBudgetStore } from './memory-store.js';
import { allLines, sessionCounter } from './plan.js';
import { restoreSpend } from './restore.js';

const HOUR = 3_600_000;

describe("restoring sessions' spend from the ledger", () => {
  it('sums each session since its last day-long pause, and leaves out sessions idle for a day', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgw-restore-'));
    const now = Date.now();
    const line = (hoursAgo: number, session: string | undefined, usd: number) =>
      JSON.stringify({ v: 1, time: new Date(now - hoursAgo * HOUR).toISOString(), group: 'dev', key: 'k', keyId: 'ab12cd34', model: 'm', provider: 'p', session, input: 1, output: 1, cacheRead: 0, cacheWrite: 0, usd, priced: 'config' });
    const entries = [
      // Before a pause of more than a day: forgotten then, not counted now.
      line(72, 'paused', 0.75),
      line(2, 'paused', 0.5),
      // Its last request more than a day ago: its counter is gone.
      line(30, 'idle', 5),
      // Two requests within the day.
      line(20, 'going', 0.25),
      line(1, 'going', 0.5),
      // No session: nothing per session.
      line(1, undefined, 9),
    ];
    // The ledger's files are by month; a restore reads those its range can hold.
    const byMonth = new Map<string, string[]>();
    for (const e of entries) {
      const month = `${(JSON.parse(e) as { time: string }).time.slice(0, 7)}.jsonl`;
      byMonth.set(month, [...(byMonth.get(month) ?? []), e]);
    }
    for (const [file, lines] of byMonth) writeFileSync(join(dir, file), `${lines.join('\n')}\n`);

    const config = parseConfig({ server: { timeZone: 'UTC' }, providers: { p: { type: 'echo' } }, models: { m: { provider: 'p' } }, keyGroups: { dev: { keys: ['k-0123456789abcdef'], budget: { usd: 1, per: 'session' } } } }, { env: {} });
    const lines = allLines(config);
    const store = createMemoryBudgetStore();
    const read = await restoreSpend(dir, config, lines, store);
    expect(read?.skipped).toBe(0);
    const spentIn = (session: string): number => {
      const d = store.reserve([{ ...sessionCounter(lines[0]!, session, now), usd: 0 }], 0, now) as BudgetDecision;
      if (d.ok) throw new Error('a budget of 0 is always spent');
      return d.spent;
    };
    expect(spentIn('paused')).toBeCloseTo(0.5, 9);
    expect(spentIn('idle')).toBe(0);
    expect(spentIn('going')).toBeCloseTo(0.75, 9);
  });
});
