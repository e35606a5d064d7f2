import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
type Reading = { total: number; main: number; other: number };
// The benchmark is plain JavaScript outside the TypeScript build; its process readings are imported as it runs them.
const { cpuSeconds, cpuReading } = (await import(new URL('../../bench/lib/proc.mjs', import.meta.url).href)) as {
  cpuSeconds: (pid: number) => number;
  cpuReading: (pid: number) => Reading;
};

const HAS_SCHEDSTAT = existsSync('/proc/self/schedstat');

describe.skipIf(!HAS_SCHEDSTAT)('the CPU a process used, by thread', () => {
  it('counts a busy worker thread among the other threads and not the main one, and both in the total', async () => {
    const before = cpuReading(process.pid);
    const totalBefore = cpuSeconds(process.pid);
    // Read while the worker still runs: a thread that has ended leaves the task list.
    const worker = new Worker('const end = Date.now() + 1500; while (Date.now() < end);', { eval: true });
    await sleep(800);
    const after = cpuReading(process.pid);
    const totalAfter = cpuSeconds(process.pid);
    await worker.terminate();
    const other = after.other - before.other;
    const main = after.main - before.main;
    expect(other).toBeGreaterThan(0.1);
    expect(main).toBeLessThan(other / 2);
    expect(totalAfter - totalBefore).toBeGreaterThanOrEqual(other + main - 0.05);
  });
});
