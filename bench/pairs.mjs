#!/usr/bin/env node
/**
 * `node bench/pairs.mjs` (after `npm run build`): what one setting costs a small request, measured on two
 * gateway processes loaded at the same time (bench/lib/together.mjs), fresh pairs: the median of their ratios, and
 * their geometric mean with its 95 % interval. For a difference of a few per cent, which runs one after the other
 * cannot tell from the machine's drift. `--warm 20 --seconds 20` halves one pair's spread (bench/README.md).
 *
 *   node bench/pairs.mjs --variant ledger-off [--pairs 8] [--seconds 6] [--warm 8] [--connections 25]
 *
 * Variants, a / b (a is this build with scenario 1's flags, `--no-log-bodies`, unless said):
 *   ledger-off    a / a with `server.ledger: false`: what the usage ledger costs (issue 26's ≤ 1.03x)
 *   no-inspector  a / a with `--no-inspector`: what the unwatched inspector costs as the config leaves it (history on by default)
 *   history       a with `--inspector-history` / a with `--no-inspector`: what keeping history costs (issue 28's ≤ 1.05x)
 *   history-rows  the same with `inspector.bodiesPerSecond` 0: history's rows alone, no request kept whole
 *   history-off   a with `--no-inspector-history` / a with `--no-inspector`: the inspector without its history
 *   same          a / a: how far apart two processes of one build fall (the floor of the others)
 * `--b-dir DIR` runs another built checkout as b, `--a-dir DIR` as a; with either, the variant defaults to `same`
 * (this build against a base build with the same flags, say).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { flag, option } from './lib/args.mjs';
import { callerHeaders, writeBodyFiles } from './lib/bodies.mjs';
import { closedLoopTool } from './lib/closed-loop.mjs';
import { placement, stopProcess } from './lib/proc.mjs';
import { GATEWAY_KEY, GATEWAY_VARIANTS, startGateway, startUpstream } from './lib/targets.mjs';
import { ratioInterval } from './lib/stats.mjs';
import { loadedTogether } from './lib/together.mjs';

const log = (s) => process.stderr.write(`${s}\n`);
const dirs = { a: option('a-dir', undefined), b: option('b-dir', undefined) };
const variant = option('variant', dirs.a || dirs.b ? 'same' : 'ledger-off');
const base = GATEWAY_VARIANTS.gateway;
/** Each variant's two gateways: `startGateway` options for a and for b. */
const VARIANTS = {
  'ledger-off': { a: { extraArgs: base }, b: { extraArgs: base, ledger: false } },
  'no-inspector': { a: { extraArgs: base }, b: { extraArgs: GATEWAY_VARIANTS.noInspector } },
  history: { a: { extraArgs: [...base, '--inspector-history'] }, b: { extraArgs: GATEWAY_VARIANTS.noInspector } },
  'history-rows': { a: { extraArgs: [...base, '--inspector-history'], inspector: { bodiesPerSecond: 0 } }, b: { extraArgs: GATEWAY_VARIANTS.noInspector } },
  'history-off': { a: { extraArgs: [...base, '--no-inspector-history'] }, b: { extraArgs: GATEWAY_VARIANTS.noInspector } },
  same: { a: { extraArgs: base }, b: { extraArgs: base } },
};
if (!VARIANTS[variant]) {
  log(`--variant takes ${Object.keys(VARIANTS).join(', ')}`);
  process.exit(2);
}
/** The side's `startGateway` options, run from the built checkout given for it, if any. */
const sideOptions = (side) => ({ ...VARIANTS[variant][side], ...(dirs[side] ? { bin: join(dirs[side], 'bin', 'model-gateway.js') } : {}) });

const pairs = Number(option('pairs', '8'));
const dir = mkdtempSync(join(tmpdir(), 'model-gateway-pairs-'));
const place = placement(flag('no-pin'));
const ctx = { place, tool: closedLoopTool(option('tool', undefined)), dir, children: new Set() };
const B = writeBodyFiles(dir);
let upstream;
let n = 0;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const c of [...ctx.children, upstream?.child]) c?.kill('SIGKILL');
    process.exit(130);
  });
}
try {
  upstream = await startUpstream(place, place.loadCore);
  // Each process its own tag, so neither reads the other's ledger or history at start.
  const start = (side) => () => startGateway(place, dir, upstream.origin, { ...sideOptions(side), tag: `${side}-${++n}` });
  log(`${variant}: ${pairs} pairs loaded together, ${place.taskset ? `both on core ${place.sutCore}` : 'unpinned'}`);
  const result = await loadedTogether(
    ctx,
    { a: start('a'), b: start('b') },
    {
      path: '/v1/chat/completions',
      headers: callerHeaders(GATEWAY_KEY).bearer,
      bodyFile: B.chat,
      connections: Number(option('connections', '25')),
      warmS: Number(option('warm', '8')),
      measureS: Number(option('seconds', '6')),
    },
    { pairs, name: variant, log },
  );
  const r = result.ratio;
  const g = ratioInterval(result.pairs.map((p) => p.ratio));
  log(`${variant}: CPU per request a / b ${r.median.toFixed(3)}x [${r.min.toFixed(3)} – ${r.max.toFixed(3)}] over ${r.n} pairs${result.errors ? `, ${result.errors} failed requests` : ''}`);
  log(`${variant}: geometric mean ${g.mean.toFixed(3)}x, 95 % interval ${g.low.toFixed(3)} – ${g.high.toFixed(3)}`);
  const meanOf = (key) => result.pairs.reduce((sum, p) => sum + p[key], 0) / result.pairs.length;
  const signed = (n) => `${n >= 0 ? '+' : ''}${n.toFixed(2)}`;
  if (Number.isFinite(meanOf('aMainUs'))) {
    log(`${variant}: a − b, µs a request on average: main thread ${signed(meanOf('aMainUs') - meanOf('bMainUs'))}, other threads ${signed(meanOf('aOtherUs') - meanOf('bOtherUs'))}`);
  }
  process.stdout.write(`${JSON.stringify({ variant, ...result, interval: g })}\n`);
  if (result.errors) process.exitCode = 2;
} finally {
  if (upstream) await stopProcess(upstream.child);
  if (!flag('keep')) rmSync(dir, { recursive: true, force: true });
}
