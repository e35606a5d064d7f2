/**
 * Running one measured phase against one target: spawn the load (pinned to the
 * load core), read the SUT's CPU time and the per-core busy % at the load's
 * MEASURE_START / MEASURE_END markers, and return the load's result with them.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closedLoop } from './closed-loop.mjs';
import { coreBusy, coreTimes, cpuReading, cpuSeconds, memoryMb, pinnedArgv } from './proc.mjs';

const LOAD = fileURLToPath(new URL('../load.mjs', import.meta.url));
let seq = 0;

/** CLOCK_MONOTONIC in µs: the clock V8's CPU profiles use, so a phase's window can be cut out of a profile. */
export const monoUs = () => Number(process.hrtime.bigint() / 1000n);

/** Runs bench/load.mjs with `spec`; the CPU window is the measured part only. */
/** `hooks.start`/`hooks.end` (may be async) run at the markers; with them the load waits for each to finish. */
export function loadPhase(ctx, target, spec, hooks) {
  const file = join(ctx.dir, `spec-${++seq}.json`);
  writeFileSync(file, JSON.stringify({ origin: target.origin, ...spec, ...(hooks ? { handshake: true } : {}) }));
  const argv = pinnedArgv(ctx.place, ctx.place.loadCore, [process.execPath, LOAD, file]);
  const hardLimitMs = spec.hardLimitMs ?? 120_000;
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: [hooks ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    const answer = (hook) => {
      if (!hooks) return;
      Promise.resolve(hook?.())
        .catch((e) => process.stderr.write(`measure hook failed: ${e.message}\n`))
        .finally(() => child.stdin.write('go\n'));
    };
    ctx.children.add(child);
    let out = '';
    let err = '';
    let cpu0;
    let cpu1;
    let cores0;
    let cores1;
    let t0;
    let t1;
    let mono0;
    let mono1;
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => {
      const text = String(d);
      if (text.includes('MEASURE_START')) {
        mono0 = monoUs();
        cpu0 = cpuSeconds(target.pid);
        cores0 = coreTimes();
        t0 = performance.now();
        answer(hooks?.start);
      }
      if (text.includes('MEASURE_END')) {
        cpu1 = cpuSeconds(target.pid);
        cores1 = coreTimes();
        t1 = performance.now();
        mono1 = monoUs();
        answer(hooks?.end);
      }
      if (err.length < 10_000) err += text.replace(/MEASURE_(START|END)\n/g, '');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), hardLimitMs + 5000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      ctx.children.delete(child);
      if (code !== 0) return reject(new Error(`load ${spec.mode} against ${target.name} exited ${code}: ${err.slice(0, 800)}`));
      try {
        const result = JSON.parse(out.trim().split('\n').pop());
        result.sutCpuS = cpu1 - cpu0;
        result.wallS = (t1 - t0) / 1000;
        result.sutCpuPct = (100 * result.sutCpuS) / result.wallS;
        result.coreBusyPct = cores0 && cores1 ? coreBusy(cores0, cores1) : [];
        result.window = { startUs: mono0, endUs: mono1 };
        resolve(result);
      } catch {
        reject(new Error(`load ${spec.mode} printed no result: ${out.slice(0, 300)} ${err.slice(0, 300)}`));
      }
    });
  });
}

/** Closed-loop throughput: a discarded warm-up run, then the measured run; CPU µs per request from /proc. */
export async function throughputPhase(ctx, target, { name, path, headers, bodyFile, connections, warmS, measureS }) {
  const url = `${target.origin}${path}`;
  const common = { place: ctx.place, dir: ctx.dir, url, headers, bodyFile, connections };
  const warm = warmS > 0 ? await closedLoop(ctx.tool, { ...common, name: `${name}-warm`, durationS: warmS }) : undefined;
  let cpu0;
  let cpu1;
  let cores0;
  let cores1;
  let mono0;
  let mono1;
  const r = await closedLoop(ctx.tool, {
    ...common,
    name,
    durationS: measureS,
    around: {
      before: () => {
        mono0 = monoUs();
        cpu0 = cpuReading(target.pid);
        cores0 = coreTimes();
      },
      after: () => {
        cpu1 = cpuReading(target.pid);
        cores1 = coreTimes();
        mono1 = monoUs();
      },
    },
  });
  r.sutCpuS = cpu1.total - cpu0.total;
  r.cpuUsPerReq = (r.sutCpuS * 1e6) / r.requests;
  // Its main thread apart from the rest (mostly V8's collector helpers): where a difference in CPU is spent.
  r.mainUsPerReq = ((cpu1.main - cpu0.main) * 1e6) / r.requests;
  r.otherUsPerReq = ((cpu1.other - cpu0.other) * 1e6) / r.requests;
  r.coreBusyPct = coreBusy(cores0, cores1);
  r.rssMb = memoryMb(target.pid).rss;
  r.warmRequests = warm?.requests ?? 0;
  r.window = { startUs: mono0, endUs: mono1 };
  return r;
}

/**
 * Samples the SUT's RSS every `everyMs` while `work` runs; returns the samples.
 * Growth compares the median of the last quarter with the median of the second quarter.
 */
export async function sampleRss(pid, everyMs, work) {
  const samples = [];
  const timer = setInterval(() => samples.push(memoryMb(pid).rss), everyMs);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return samples;
}
