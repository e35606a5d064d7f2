/**
 * Two gateway processes loaded at the same time: both pinned to the SUT core, each by its own closed loop
 * (on the load core), CPU per request of each over the same window. The machine's pace on these VMs changes
 * by up to 2x within minutes, which a comparison of one process after the other takes for a difference
 * between them; loaded together, a slower machine slows both, and only the processes' own difference is
 * left. That is still ±7 % between two fresh processes of one build, so a pair is repeated with fresh
 * processes, the one started first alternating, and judged on the median of the pairs' ratios.
 */
import { throughputPhase } from './phases.mjs';
import { stopProcess } from './proc.mjs';
import { spread } from './stats.mjs';

/**
 * `pairs` fresh pairs of `start.a()` and `start.b()` (each resolving to a started target with `pid` and
 * `origin`), small requests from `phase` (`{ path, headers, bodyFile, connections, warmS, measureS }`,
 * `connections` each). Returns each pair's figures and the median [min – max] of a's CPU per request over b's.
 */
export async function loadedTogether(ctx, start, phase, { pairs, name = 'together', log = () => {} }) {
  const rows = [];
  for (let i = 0; i < pairs; i++) {
    const order = i % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
    const started = {};
    try {
      for (const side of order) {
        started[side] = await start[side]();
        // Among the children a stopped benchmark kills, as its load processes are.
        ctx.children.add(started[side].child);
      }
      const [a, b] = await Promise.all(['a', 'b'].map((side) => throughputPhase(ctx, started[side], { ...phase, name: `${name}-${side}-${i + 1}` })));
      const row = {
        aCpuUs: a.cpuUsPerReq,
        bCpuUs: b.cpuUsPerReq,
        aMainUs: a.mainUsPerReq,
        bMainUs: b.mainUsPerReq,
        aOtherUs: a.otherUsPerReq,
        bOtherUs: b.otherUsPerReq,
        aRps: a.rps,
        bRps: b.rps,
        errors: a.errors + a.non2xx + b.errors + b.non2xx,
        ratio: a.cpuUsPerReq / b.cpuUsPerReq,
      };
      rows.push(row);
      const threads = Number.isFinite(row.aMainUs) ? ` (main thread ${row.aMainUs.toFixed(1)} / ${row.bMainUs.toFixed(1)}, others ${row.aOtherUs.toFixed(1)} / ${row.bOtherUs.toFixed(1)})` : '';
      log(`    pair ${i + 1}/${pairs} (${order.join(' first, ')} second): ${row.aCpuUs.toFixed(1)} / ${row.bCpuUs.toFixed(1)} µs CPU/req${threads} = ${row.ratio.toFixed(3)}x, ${Math.round(row.aRps)} + ${Math.round(row.bRps)} req/s`);
    } finally {
      await Promise.all(Object.values(started).map((t) => stopProcess(t.child)));
      for (const t of Object.values(started)) ctx.children.delete(t.child);
    }
  }
  return { pairs: rows, ratio: spread(rows.map((r) => r.ratio)), errors: rows.reduce((n, r) => n + r.errors, 0) };
}
