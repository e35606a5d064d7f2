/** A V8 .cpuprofile summarised: busy time by area, top functions by self time, the gateway's by inclusive time. */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The most one sample counts for: twice the profiler's default interval (1 ms). */
const MAX_SAMPLE_US = 2000;

const maps = new Map();
/** dist/x.js:line → src/x.ts:line through the build's source maps (tsconfig.build.json has sourceMap on). */
export function original(url, line, column) {
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (!maps.has(file)) {
    let map;
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = undefined;
    }
    maps.set(file, map);
  }
  const map = maps.get(file);
  const entry = map?.findEntry(line, column);
  if (!entry || entry.originalLine === undefined) return undefined;
  return `src/${file.split('/dist/')[1].replace(/\.js$/, '.ts')}:${entry.originalLine + 1}`;
}

export function area(url, fn) {
  if (!url) return fn.startsWith('(') ? fn : '(native/builtin)';
  if (url.includes('/node_modules/')) return `npm:${url.split('/node_modules/')[1].split('/')[0]}`;
  if (url.includes('/dist/')) return `src/${url.split('/dist/')[1].replace(/\.js$/, '.ts')}`;
  if (url.startsWith('node:internal/streams') || url === 'node:stream') return 'node:streams';
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:');
  return url;
}

const isGatewayCode = (url) => url.includes('/dist/') && !url.includes('/node_modules/');

/**
 * Busy time by area, top functions by self time, and the gateway's functions by
 * inclusive time, counting only samples inside `window` (CLOCK_MONOTONIC µs)
 * when given, so start-up and shutdown stay out.
 */
export function summarise(profile, window, top = 22) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const key = (n) => {
    const f = n.callFrame;
    const where = isGatewayCode(f.url) ? (original(f.url, f.lineNumber, f.columnNumber) ?? area(f.url, '')) : `${area(f.url, f.functionName)}${f.url ? `:${f.lineNumber + 1}` : ''}`;
    return `${f.functionName || '(anonymous)'}  ${where}`;
  };
  const self = new Map();
  const areas = new Map();
  const inclusive = new Map();
  let busy = 0;
  let idle = 0;
  let t = profile.startTime;
  profile.samples.forEach((id, i) => {
    const gap = profile.timeDeltas[i] ?? 0;
    t += gap;
    // A sample taken after the process waited for a core (a loaded machine) carries the whole wait: counted as
    // at most two sampling intervals, the shares stay those of the process's own work.
    const dt = Math.min(gap, MAX_SAMPLE_US);
    if (window && (t < window.startUs || t > window.endUs)) return;
    const n = byId.get(id);
    if (n.callFrame.functionName === '(idle)') {
      idle += dt;
      return;
    }
    busy += dt;
    const k = key(n);
    self.set(k, (self.get(k) ?? 0) + dt);
    const a = area(n.callFrame.url, n.callFrame.functionName);
    areas.set(a, (areas.get(a) ?? 0) + dt);
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const node = byId.get(cur);
      if (!isGatewayCode(node.callFrame.url)) continue;
      const kk = key(node);
      if (seen.has(kk)) continue;
      seen.add(kk);
      inclusive.set(kk, (inclusive.get(kk) ?? 0) + dt);
    }
  });
  const pct = (v) => `${((100 * v) / busy).toFixed(1).padStart(5)}%`;
  const list = (m, n) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `  ${pct(v)}  ${k}`);
  const lines = [
    `busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s in the measured window (percentages are of busy time)`,
    'by area (self time):',
    ...list(areas, 16),
    'top functions (self time):',
    ...list(self, top),
    'gateway functions (inclusive time: the function and what it calls):',
    ...list(inclusive, top),
  ];
  return {
    text: lines.join('\n'),
    busyS: busy / 1e6,
    areas: Object.fromEntries([...areas.entries()].map(([k, v]) => [k, v / busy])),
    selfTop: [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, v]) => [k, v / busy]),
    inclusiveTop: [...inclusive.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, v]) => [k, v / busy]),
  };
}
