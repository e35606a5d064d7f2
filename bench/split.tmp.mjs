import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { smallChat } from './lib/bodies.mjs';
import { closedLoopTool } from './lib/closed-loop.mjs';
import { throughputPhase } from './lib/phases.mjs';
import { placement, stopProcess } from './lib/proc.mjs';
import { GATEWAY_KEY, startGateway, startReference, startUpstream } from './lib/targets.mjs';
import { option, serveArgs } from './lib/args.mjs';
const dir = mkdtempSync(join(tmpdir(), 'split-'));
const place = placement(false);
const ctx = { place, tool: closedLoopTool(undefined), dir, children: new Set() };
const bodyFile = join(dir, 'chat.json'); writeFileSync(bodyFile, JSON.stringify(smallChat('bench-chat', false)));
const bearer = { authorization: `Bearer ${GATEWAY_KEY}`, 'user-agent': 'OpenAI/JS 6.49.0' };
const up = await startUpstream(place, place.loadCore);
const bins = option('bins', 'main').split(',');
const reps = Number(option('reps', '3'));
const results = {};
import { startProcess, pinnedArgv, waitForUrlLine } from './lib/proc.mjs';
import { MODELS } from './lib/targets.mjs';
async function startRef2(envs) {
  const routes = Object.fromEntries(Object.entries(MODELS).map(([m, v]) => [m, v.prefix]));
  const env = { ...process.env }; for (const e of envs.split('+')) if (e) env[e] = '1';
  const child = startProcess(pinnedArgv(place, place.sutCore, [process.execPath, new URL('./ref2.tmp.mjs', import.meta.url).pathname, '--upstream', up.origin, '--routes', JSON.stringify(routes), '--key', GATEWAY_KEY]), { env });
  const origin = await waitForUrlLine(child);
  return { child, pid: child.pid, origin };
}
try {
  for (let rep = 0; rep < reps; rep++) {
    const order = ['reference', ...bins]; for (let k = 0; k < order.length; k++) { const b = order[(k + rep) % order.length];
      const t = b === 'reference' ? await startReference(place, up.origin, { extraNodeArgs: ['--perf-basic-prof'] }) : b.startsWith('ref:') ? await startRef2(b.slice(4)) : await startGateway(place, dir, up.origin, { extraNodeArgs: [...option('node-args','').split(' ').filter(Boolean), '--perf-basic-prof'], extraArgs: serveArgs(), ...(b === 'main' ? {} : { bin: join(b, 'bin/model-gateway.js') }) });
      const perfOut = option('perf', '') ? `/tmp/exp/perf-${b.split('/').pop()}-${rep}.data` : undefined;
      const { spawn } = await import('node:child_process');
      const perf = perfOut ? new Promise((res) => setTimeout(() => spawn('perf', ['record', '-g', '-e', 'cpu-clock', '-F', '2000', '-p', String(t.pid), '-o', perfOut, '--', 'sleep', '4'], { stdio: 'ignore' }).once('exit', res), 3000)) : undefined;
      const r = await throughputPhase(ctx, t, { name: 's', path: '/v1/chat/completions', headers: bearer, bodyFile, connections: 50, warmS: 2, measureS: 5 });
      if (perf) await perf;
      (results[b] ??= []).push(r.cpuUsPerReq); console.error(b, 'rps', (r.requests / 5).toFixed(0));
      await stopProcess(t.child);
    }
  }
} finally { await stopProcess(up.child); }
const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (const [b, v] of Object.entries(results)) console.log(b.padEnd(24), 'median', med(v).toFixed(1), 'µs/req  ratio', (med(v) / med(results.reference)).toFixed(2), ' all', v.map((x) => x.toFixed(0)).join(' '));
