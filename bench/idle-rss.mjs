#!/usr/bin/env node
/**
 * `node bench/idle-rss.mjs` (after `npm run build`): the RSS of a gateway just started, before any request,
 * as `npm run bench` reads it ("RSS idle": VmRSS 1 s after it prints its URL), with the bench's config and
 * flags, over several fresh starts. RSS does not move with the machine's load the way timings do, so this
 * can judge a change on a shared machine.
 *
 *   node bench/idle-rss.mjs [--starts 5] [--bin other/bin/model-gateway.js] [--serve-args "--metrics-port 0"]
 *        [--node-args "--max-semi-space-size=1"] [--reference] [--heap]
 * (`--reference`: the reference forwarder too. `--heap`: also the gateway's `process.memoryUsage()`, which a module
 * preloaded with `--import` writes to a file when the process is sent SIGUSR2.)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { flag, option, serveArgs as serveArgsOf } from './lib/args.mjs';
import { memoryMb, placement, stopProcess } from './lib/proc.mjs';
import { GATEWAY_VARIANTS, startGateway, startReference, startUpstream } from './lib/targets.mjs';

const starts = Number(option('starts', '5'));
const bin = option('bin', undefined);
const nodeArgs = option('node-args', '').split(' ').filter(Boolean);
const heap = flag('heap');
const dir = mkdtempSync(join(tmpdir(), 'model-gateway-idle-'));
const place = placement(true);
const log = (s) => process.stderr.write(`${s}\n`);

// A preloaded module that writes the process's own memory figures to a file on SIGUSR2.
const heapProbe = join(dir, 'heap-probe.mjs');
writeFileSync(
  heapProbe,
  `import { writeFileSync } from 'node:fs';\n` +
    `process.on('SIGUSR2', () => writeFileSync(process.env.IDLE_RSS_OUT, JSON.stringify(process.memoryUsage())));\n`,
);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mb = (x) => (Math.round(x * 10) / 10).toFixed(1);

const upstream = await startUpstream(place, place.loadCore);
try {
  const rows = [];
  for (let i = 0; i < starts; i++) {
    const out = join(dir, `mem-${i}.json`);
    const extraNodeArgs = heap ? [...nodeArgs, '--import', heapProbe] : nodeArgs;
    process.env.IDLE_RSS_OUT = out;
    const gw = await startGateway(place, dir, upstream.origin, {
      tag: `gw${i}`,
      extraNodeArgs,
      extraArgs: [...GATEWAY_VARIANTS.gateway, ...serveArgsOf()],
      ...(bin ? { bin } : {}),
    });
    await sleep(1000);
    const row = { rss: memoryMb(gw.pid).rss };
    if (heap) {
      gw.child.kill('SIGUSR2');
      await sleep(200);
      const m = JSON.parse(readFileSync(out, 'utf8'));
      Object.assign(row, { heapUsed: m.heapUsed / 2 ** 20, heapTotal: m.heapTotal / 2 ** 20, external: m.external / 2 ** 20 });
    }
    rows.push(row);
    log(`start ${i + 1}: RSS ${mb(row.rss)} MB${heap ? `, heap used ${mb(row.heapUsed)} of ${mb(row.heapTotal)} MB, external ${mb(row.external)} MB` : ''}`);
    await stopProcess(gw.child);
  }
  const result = { gatewayRssMb: median(rows.map((r) => r.rss)), runs: rows };
  if (heap) result.heapUsedMb = median(rows.map((r) => r.heapUsed));
  if (flag('reference')) {
    const refs = [];
    for (let i = 0; i < starts; i++) {
      const ref = await startReference(place, upstream.origin);
      await sleep(1000);
      refs.push(memoryMb(ref.pid).rss);
      await stopProcess(ref.child);
    }
    result.referenceRssMb = median(refs);
  }
  log(`median of ${starts}: gateway ${mb(result.gatewayRssMb)} MB${result.referenceRssMb ? `, reference ${mb(result.referenceRssMb)} MB` : ''}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await stopProcess(upstream.child);
  rmSync(dir, { recursive: true, force: true });
}
