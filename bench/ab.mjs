#!/usr/bin/env node
/**
 * `node bench/ab.mjs --base <git revision>` (after `npm run build`): is this build
 * cheaper than another? A single `npm run bench` cannot tell a 10% change on
 * these VMs, where one process differs from the next by more than that.
 *
 * Each rep starts fresh processes of the reference forwarder, the base build and
 * this build, in an order that rotates per rep (so being first or last favours
 * none), and runs the same closed-loop phase against each: a warm-up, then the
 * measured window. It reports CPU µs per request and throughput, median and
 * range over the reps, and this build's ratio to the base per rep (paired, so
 * drift across reps cancels).
 *
 *   node bench/ab.mjs --base HEAD~3 [--reps 5] [--seconds 6] [--warm 3] [--only small,big,stream,ttfb,alt,bedrock] [--serve-args "--no-log-bodies"]
 *   node bench/ab.mjs --only bedrock [--reps 6]   (no base needed: this build alone)
 *   node bench/ab.mjs --base-dir /path/to/other/checkout   (already built)
 *   --this-dir /path/to/built/checkout: measure that build instead of this repo's
 *   --also dir1,dir2: more built checkouts in the same reps (variants of one change, say)
 *
 * `ttfb` times serial streams instead (scenario 3's serial half, `--serial` of them after the concurrent
 * streams as warm-up), with each proxy's own share of the time to first byte from bench/lib/ttfb-probe.mjs,
 * and reports differences to the base and the reference rather than ratios. `alt` does the same with all of a
 * rep's processes running at once, their serial streams alternating with each other's and with direct calls
 * (bench/load.mjs's interleaved mode, balanced order): each starts colder, as a request spaced from the last
 * does, and the differences hold still, where `ttfb`'s move with the machine between one process and the next.
 * `bedrock` measures, in each gateway process, the same Messages stream from its anthropic provider (SSE passed
 * through) and from its bedrock provider (event-stream decoded), A-B-B-A (bench/lib/bedrock-streams.mjs), and
 * reports the ratio of their CPU per stream per process; the reference forwarder has no part in it, and without
 * --base only this build runs.
 * `redis` measures what sharing key-group limits and budgets through Redis adds to a request: this build, its
 * `dev` group with all three limits and a budget (none with --no-budget), counting in memory in one process and in a redis-server on loopback (`state.redis`;
 * bench/lib/redis.mjs) in another, both up at once, small requests one at a time alternating between them
 * (`--serial` each, after a warm-up); it reports their p50 and the difference, paired per rep. It needs no
 * --base and runs no reference.
 *
 * The base revision is checked out in a temporary git worktree with this repo's
 * node_modules linked in, and built there.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flag, option, serveArgs as serveArgsOf } from './lib/args.mjs';
import { bedrockPair, bedrockPairBodies } from './lib/bedrock-streams.mjs';
import { claudeCodeBody, claudeCodeHeaders, smallChat } from './lib/bodies.mjs';
import { closedLoopTool } from './lib/closed-loop.mjs';
import { loadPhase, throughputPhase } from './lib/phases.mjs';
import { startRedis } from './lib/redis.mjs';
import { memoryMb, placement, stopProcess } from './lib/proc.mjs';
import { spread } from './lib/stats.mjs';
import { GATEWAY_KEY, GATEWAY_VARIANTS, directPath, startGateway, startReference, startUpstream } from './lib/targets.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const log = (s) => process.stderr.write(`${s}\n`);
const reps = Number(option('reps', '5'));
const seconds = Number(option('seconds', '6'));
const warmS = Number(option('warm', '3'));
const only = option('only', 'small').split(',');
const serialN = Number(option('serial', '80'));
const extraArgs = option('serve-args', undefined) === undefined ? GATEWAY_VARIANTS.gateway : serveArgsOf();

const thisDir = option('this-dir', REPO);
const dir = mkdtempSync(join(tmpdir(), 'model-gateway-ab-'));
const place = placement(flag('no-pin'));
const ctx = { place, tool: closedLoopTool(option('tool', undefined)), dir, children: new Set() };

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}: ${r.stderr || r.stdout}`);
  return r.stdout.trim();
}

/** The base build: a worktree of `rev`, built, or a directory given as is; none for `bedrock` alone without one. */
function baseBuild() {
  const given = option('base-dir', undefined);
  if (given) return { dir: given, label: given, cleanup: () => {} };
  const rev = option('base', undefined);
  if (!rev && only.every((s) => s === 'bedrock' || s === 'redis')) return undefined;
  if (!rev) throw new Error('Give --base <git revision> or --base-dir <built checkout>.');
  const sha = run('git', ['rev-parse', '--short', rev], REPO);
  const tree = join(dir, `base-${sha}`);
  run('git', ['worktree', 'add', '--detach', tree, sha], REPO);
  symlinkSync(join(REPO, 'node_modules'), join(tree, 'node_modules'));
  log(`building ${rev} (${sha}) in ${tree}`);
  run('npm', ['run', 'build', '--silent'], tree);
  return { dir: tree, label: sha.startsWith(rev) ? sha : `${rev} (${sha})`, cleanup: () => run('git', ['worktree', 'remove', '--force', tree], REPO) };
}

const write = (name, obj) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(obj));
  return file;
};
const STREAM = {
  path: '/v1/chat/completions',
  headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'user-agent': 'OpenAI/JS 6.49.0' },
  bodyFile: () => write('chat-stream.json', smallChat('bench-chat', true)),
};
const SCENARIOS = {
  small: {
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'user-agent': 'OpenAI/JS 6.49.0' },
    bodyFile: () => write('chat.json', smallChat('bench-chat', false)),
  },
  big: {
    path: '/v1/messages?beta=true',
    headers: claudeCodeHeaders(GATEWAY_KEY),
    bodyFile: () => write('big.json', claudeCodeBody('claude-bench', false)),
  },
  /** Scenario 3's concurrent half: 50 SSE streams of 50 chunks at once; figures per stream. */
  stream: { ...STREAM, streams: true },
  /** Scenario 3's serial half: time to first byte, one stream at a time, after concurrent streams as warm-up. */
  ttfb: { ...STREAM, serial: true },
  /**
   * The same, but all the processes of a rep run at once and their serial streams alternate with each other
   * and with direct calls, in a balanced order (bench/load.mjs's interleaved mode): a colder start for each,
   * and differences that hold still, since every target shares the machine's moments.
   */
  alt: { ...STREAM, serial: true, alternating: true },
  /** Messages streams from the anthropic and the bedrock provider in each gateway process; figures per stream. */
  bedrock: { bedrock: true, bodyFile: () => bedrockPairBodies(dir) },
  /** Small requests one at a time, the group's limits in memory and in Redis; figures: latency p50. */
  redis: {
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'user-agent': 'OpenAI/JS 6.49.0' },
    bodyFile: () => write('chat.json', smallChat('bench-chat', false)),
    latency: true,
  },
};
/** The `redis` scenario's limits: all three, so that an admission runs every check and its end gives a slot back and files tokens. */
const REDIS_LIMITS = { requestsPerMinute: 10_000_000, concurrentRequests: 10_000, tokensPerMinute: 1_000_000_000 };
/** The `redis` scenario's budget, never reached: each request reserves on it and settles its cost. */
const REDIS_BUDGET = { usd: 1_000_000, per: 'month' };
for (const s of only) if (!SCENARIOS[s]) throw new Error(`Unknown scenario '${s}': ${Object.keys(SCENARIOS).join(', ')}.`);

const PROBE = ['--import', fileURLToPath(new URL('./lib/ttfb-probe.mjs', import.meta.url))];
process.env.TTFB_PROBE_DIR = dir;
const median = (values) => spread(values).median;

/** The probe's figures of a stopped process: the medians of its last `n` requests, in µs. */
async function probeFigures(pid, n) {
  const file = join(dir, `ttfb-probe-${pid}.json`);
  for (let i = 0; i < 50 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
  const { pre, send, post, flush } = JSON.parse(readFileSync(file, 'utf8'));
  const us = (values) => median(values.slice(-n)) * 1000;
  return { preUs: us(pre), sendUs: us(send), postUs: us(post), flushUs: us(flush) };
}

async function measure(start, scenario, bodyFile, name) {
  const target = await start(scenario.serial ? PROBE : []);
  let m;
  try {
    m = await measureLoad(target, scenario, bodyFile, name);
  } finally {
    await stopProcess(target.child);
  }
  return scenario.serial ? { ...m, ...(await probeFigures(target.pid, serialN)) } : m;
}

/** The serial-stream scenarios' load spec (scenario 3's Chat stream). */
const streamSpec = (scenario, bodyFile) => ({ mode: 'requests', path: scenario.path, headers: scenario.headers, stream: true, kind: 'chat', bodyFile });

/** One rep of `alt`: every target started and warmed up as for `ttfb`, then serial streams to all of them and to the upstream, alternating. */
async function measureAlternating(targets, order, scenario, bodyFile, rep) {
  const spec = streamSpec(scenario, bodyFile);
  const started = {};
  let turns;
  try {
    for (const n of order) started[n] = { name: n, ...(await targets[n](PROBE)) };
    for (const n of order) {
      const r = await loadPhase(ctx, started[n], { ...spec, concurrency: 50, warmupMs: warmS * 1000, durationMs: seconds * 1000 });
      if (r.failed > 0) throw new Error(`alt-${basename(n)}-${rep}: ${r.failed} streams failed: ${r.errors.samples.join('; ')}`);
    }
    const direct = { name: 'direct', origin: upstream.origin, path: directPath('bench-chat', scenario.path), headers: scenario.headers };
    const to = order.map((n) => ({ name: n, origin: started[n].origin, path: scenario.path, headers: scenario.headers }));
    turns = await loadPhase(ctx, started[order[0]], { ...spec, mode: 'interleaved', warmupCount: 5, count: serialN, targets: [...to, direct] });
    if (turns.failed > 0) throw new Error(`alt rep ${rep}: ${turns.failed} streams failed: ${turns.errors.samples.join('; ')}`);
  } finally {
    await Promise.all(Object.values(started).map((t) => stopProcess(t.child)));
  }
  const out = { direct: { ttfbMs: turns.targets.direct.ttfbMs.p50 } };
  for (const n of order) out[n] = { ttfbMs: turns.targets[n].ttfbMs.p50, ...(await probeFigures(started[n].pid, serialN)) };
  return out;
}

/** One rep of `redis`: both stores' gateways up at once, serial small requests alternating between them. */
async function measureStores(stores, order, scenario, bodyFile, rep) {
  const started = {};
  let turns;
  try {
    for (const n of order) started[n] = await stores[n]([]);
    const to = order.map((n) => ({ name: n, origin: started[n].origin, path: scenario.path, headers: scenario.headers }));
    const spec = { mode: 'interleaved', stream: false, kind: 'chat', bodyFile, warmupCount: 300, count: serialN, targets: to };
    turns = await loadPhase(ctx, started[order[0]], spec);
    if (turns.failed > 0) throw new Error(`redis rep ${rep}: ${turns.failed} requests failed: ${turns.errors.samples.join('; ')}`);
  } finally {
    await Promise.all(Object.values(started).map((t) => stopProcess(t.child)));
  }
  return Object.fromEntries(order.map((n) => [n, { p50Ms: turns.targets[n].latencyMs.p50, p99Ms: turns.targets[n].latencyMs.p99, requests: turns.targets[n].completed }]));
}

async function measureLoad(target, scenario, bodyFile, name) {
  if (scenario.bedrock) {
    const r = await bedrockPair(ctx, target, bodyFile, { warmMs: warmS * 1000, secondWarmMs: 1000, measureMs: seconds * 1000 });
    const failed = r.anthropic.failed + r.bedrock.failed;
    if (failed > 0) throw new Error(`${name}: ${failed} streams failed: ${[...r.anthropic.errorSamples, ...r.bedrock.errorSamples].join('; ')}`);
    return { anthropicCpuUs: r.anthropic.cpuUs, cpuUs: r.bedrock.cpuUs, ratio: r.ratio, windows: { anthropic: r.anthropic.windowsCpuUs, bedrock: r.bedrock.windowsCpuUs }, peakMb: memoryMb(target.pid).hwm };
  }
  if (scenario.streams || scenario.serial) {
    const spec = streamSpec(scenario, bodyFile);
    // For `ttfb` the concurrent streams are the serial ones' warm-up, as in the benchmark.
    const r = await loadPhase(ctx, target, { ...spec, concurrency: 50, warmupMs: warmS * 1000, durationMs: seconds * 1000 });
    const serial = scenario.serial ? await loadPhase(ctx, target, { ...spec, concurrency: 1, warmupCount: 5, count: serialN }) : undefined;
    const failed = r.failed + (serial?.failed ?? 0);
    if (failed > 0) throw new Error(`${name}: ${failed} streams failed: ${[...r.errors.samples, ...(serial?.errors.samples ?? [])].join('; ')}`);
    if (serial) return { ttfbMs: serial.ttfbMs.p50, peakMb: memoryMb(target.pid).hwm };
    return { cpuUs: (r.sutCpuS * 1e6) / r.completed, rps: r.completed / seconds, peakMb: memoryMb(target.pid).hwm };
  }
  const r = await throughputPhase(ctx, target, {
    name,
    path: scenario.path,
    headers: scenario.headers,
    bodyFile,
    connections: 50,
    warmS,
    measureS: seconds,
  });
  if (r.errors + r.non2xx > 0) throw new Error(`${name}: ${r.errors} errors, ${r.non2xx} non-2xx`);
  return { cpuUs: r.cpuUsPerReq, rps: r.rps, peakMb: memoryMb(target.pid).hwm };
}

/** The serial scenario's summary: medians over the reps, then each build's difference to the base and the reference, paired per rep. */
function summarizeSerial(rows, out, fmt, names, label) {
  const figures = [
    ['ttfbMs', 'time to first byte p50', 'ms', 3],
    ['preUs', 'own share before the upstream call', 'µs', 0],
    ['sendUs', 'then undici, to its socket write', 'µs', 0],
    ['postUs', 'own share after its headers', 'µs', 0],
    ['flushUs', 'then to the socket write', 'µs', 0],
  ];
  for (const n of names) {
    out[n] = Object.fromEntries(figures.map(([k]) => [k, spread(rows[n].map((m) => m[k]))]));
    log(`  ${(label[n] ?? n).padEnd(28)} ${figures.map(([k, what, unit, d]) => `${what} ${fmt(out[n][k], d)} ${unit}`).join(';  ')}`);
  }
  for (const n of names.filter((x) => x !== 'reference' && x !== 'base')) {
    for (const against of ['base', 'reference']) {
      const diffs = Object.fromEntries(figures.map(([k]) => [k, spread(rows[n].map((m, i) => m[k] - rows[against][i][k]))]));
      out[`${n}-${against}`] = diffs;
      log(`  ${label[n] ?? n} − ${against}: ${figures.map(([k, what, unit, d]) => `${what} ${fmt(diffs[k], d)} ${unit}`).join(';  ')} (paired per rep)`);
    }
  }
}

/** The `bedrock` scenario's summary: per build, CPU per stream from each provider and their ratio per process; with a base, this build's ratio over the base's, paired per rep. */
function summarizeBedrock(rows, out, fmt, label) {
  for (const [n, ms] of Object.entries(rows)) {
    out[n] = { anthropicCpuUs: spread(ms.map((m) => m.anthropicCpuUs)), bedrockCpuUs: spread(ms.map((m) => m.cpuUs)), ratio: spread(ms.map((m) => m.ratio)) };
    log(`  ${(label[n] ?? n).padEnd(28)} CPU per stream from anthropic ${fmt(out[n].anthropicCpuUs)} µs, from bedrock ${fmt(out[n].bedrockCpuUs)} µs; bedrock / anthropic ${fmt(out[n].ratio, 3)}`);
  }
  if (!rows.base) return;
  for (const n of Object.keys(rows).filter((x) => x !== 'base')) {
    out[`${n}/base`] = spread(rows[n].map((m, i) => m.ratio / rows.base[i].ratio));
    log(`  ${label[n] ?? n}: bedrock / anthropic over the base's ${fmt(out[`${n}/base`], 3)} (paired per rep)`);
  }
}

/** The `redis` scenario's summary: each store's p50 and p99, and Redis's added p50, paired per rep. */
function summarizeLatency(rows, out, fmt) {
  for (const n of ['memory', 'redis']) {
    out[n] = { p50Ms: spread(rows[n].map((m) => m.p50Ms)), p99Ms: spread(rows[n].map((m) => m.p99Ms)) };
    log(`  ${n.padEnd(28)} p50 ${fmt(out[n].p50Ms, 3)} ms, p99 ${fmt(out[n].p99Ms, 3)} ms`);
  }
  out['redis-memory'] = spread(rows.redis.map((m, i) => m.p50Ms - rows.memory[i].p50Ms));
  log(`  redis − memory: p50 ${fmt(out['redis-memory'], 3)} ms (paired per rep; target ≤ 0.3 ms)`);
}

const base = baseBuild();
const label = { reference: 'reference', base: `base ${base?.label}`, this: thisDir === REPO ? 'this build' : thisDir };
// The bedrock provider is in the gateways' config only for the scenario that uses it, so a base from before it can run the rest.
const bedrock = only.includes('bedrock');
let upstream;
let redis;
try {
  upstream = await startUpstream(place, place.loadCore);
  if (only.includes('redis')) redis = await startRedis(place);
  const targets = {
    reference: (extraNodeArgs) => startReference(place, upstream.origin, { extraNodeArgs }),
    ...(base ? { base: (extraNodeArgs) => startGateway(place, dir, upstream.origin, { tag: 'base', bin: join(base.dir, 'bin', 'model-gateway.js'), extraArgs, extraNodeArgs, bedrock }) } : {}),
    this: (extraNodeArgs) => startGateway(place, dir, upstream.origin, { tag: 'this', bin: join(thisDir, 'bin', 'model-gateway.js'), extraArgs, extraNodeArgs, bedrock }),
  };
  // The `redis` scenario's two: this build with the same limits and budget, kept in memory and in Redis.
  const start = (tag, state) => (extraNodeArgs) =>
    startGateway(place, dir, upstream.origin, { tag, bin: join(thisDir, 'bin', 'model-gateway.js'), extraArgs, extraNodeArgs, limits: REDIS_LIMITS, budget: flag('no-budget') ? undefined : REDIS_BUDGET, ...(state ? { state } : {}) });
  const stores = redis ? { memory: start('memory'), redis: start('redis', { redis: redis.url }) } : {};
  const also = option('also', '').split(',').filter(Boolean);
  for (const d of also) {
    targets[d] = (extraNodeArgs) => startGateway(place, dir, upstream.origin, { tag: basename(d), bin: join(d, 'bin', 'model-gateway.js'), extraArgs, extraNodeArgs });
  }
  const allNames = Object.keys(targets);
  const results = {};
  for (const s of only) {
    const scenario = SCENARIOS[s];
    const bodyFile = scenario.bodyFile();
    // The reference forwarder speaks no event-stream: `bedrock` runs on the gateway builds only.
    const names = scenario.latency ? Object.keys(stores) : scenario.bedrock ? allNames.filter((n) => n !== 'reference') : allNames;
    const rows = Object.fromEntries(names.map((n) => [n, []]));
    results[s] = rows;
    for (let rep = 0; rep < reps; rep++) {
      const order = names.map((_, i) => names[(i + rep) % names.length]);
      if (scenario.latency) {
        const m = await measureStores(stores, order, scenario, bodyFile, rep);
        for (const n of names) rows[n].push(m[n]);
        log(`  ${s} rep ${rep + 1}/${reps}: p50 ${names.map((n) => `${n} ${m[n].p50Ms.toFixed(3)}`).join(', ')} ms; redis − memory ${(m.redis.p50Ms - m.memory.p50Ms).toFixed(3)} ms`);
        continue;
      }
      if (scenario.alternating) {
        const m = await measureAlternating(targets, order, scenario, bodyFile, rep);
        rows.direct ??= [];
        rows.direct.push(m.direct);
        log(`  ${s} rep ${rep + 1}/${reps}: time to first byte p50 ${[...names, 'direct'].map((n) => `${label[n] ?? n} ${m[n].ttfbMs.toFixed(3)}`).join(', ')} ms`);
        for (const n of names) rows[n].push(m[n]);
        continue;
      }
      for (const n of order) {
        const m = await measure(targets[n], scenario, bodyFile, `${s}-${basename(n)}-${rep}`);
        rows[n].push(m);
        const head = `  ${s} rep ${rep + 1}/${reps} ${(label[n] ?? n).slice(-24).padEnd(24)}`;
        if (scenario.bedrock) {
          log(`${head} CPU per Messages stream: ${m.anthropicCpuUs.toFixed(0)} µs from anthropic, ${m.cpuUs.toFixed(0)} µs from bedrock: ${m.ratio.toFixed(3)}x`);
          continue;
        }
        if (scenario.serial) {
          log(`${head} time to first byte p50 ${m.ttfbMs.toFixed(3)} ms; own share: ${m.preUs.toFixed(0)} µs before the upstream call (+ ${m.sendUs.toFixed(0)} in undici), ${m.postUs.toFixed(0)} µs after its headers (+ ${m.flushUs.toFixed(0)} to the socket)`);
          continue;
        }
        const per = scenario.streams ? 'stream' : 'req';
        log(`${head} ${m.cpuUs.toFixed(0).padStart(5)} µs CPU/${per}  ${m.rps.toFixed(0).padStart(6)} ${per}/s  peak ${m.peakMb.toFixed(0)} MB`);
      }
    }
  }

  const fmt = (s, d = 0) => `${s.median.toFixed(d)} [${s.min.toFixed(d)}–${s.max.toFixed(d)}]`;
  const summary = {};
  for (const [s, rows] of Object.entries(results)) {
    log(`\n${s}: median [min–max] of ${reps} fresh processes each`);
    const out = {};
    summary[s] = out;
    if (SCENARIOS[s].serial) {
      if (rows.direct) {
        out.direct = { ttfbMs: spread(rows.direct.map((m) => m.ttfbMs)) };
        log(`  ${'direct'.padEnd(28)} time to first byte p50 ${fmt(out.direct.ttfbMs, 3)} ms`);
      }
      summarizeSerial(rows, out, fmt, allNames, label);
      continue;
    }
    if (SCENARIOS[s].bedrock) {
      summarizeBedrock(rows, out, fmt, label);
      continue;
    }
    if (SCENARIOS[s].latency) {
      summarizeLatency(rows, out, fmt);
      continue;
    }
    for (const n of allNames) {
      const cpu = spread(rows[n].map((m) => m.cpuUs));
      const rps = spread(rows[n].map((m) => m.rps));
      const peak = spread(rows[n].map((m) => m.peakMb));
      out[n] = { cpuUs: cpu, rps, peakMb: peak };
      const per = SCENARIOS[s].streams ? 'stream' : 'req';
      log(`  ${(label[n] ?? n).padEnd(28)} CPU ${fmt(cpu).padEnd(18)} µs/${per}   ${fmt(rps).padEnd(20)} ${per}/s   peak ${fmt(peak)} MB`);
    }
    for (const n of allNames.filter((x) => x !== 'reference' && x !== 'base')) {
      const paired = spread(rows[n].map((m, i) => m.cpuUs / rows.base[i].cpuUs));
      const vsRef = spread(rows[n].map((m, i) => m.cpuUs / rows.reference[i].cpuUs));
      out[`${n}/base`] = paired;
      out[`${n}/reference`] = vsRef;
      log(`  ${label[n] ?? n}: CPU / base ${fmt(paired, 3)}, / reference ${fmt(vsRef, 2)} (paired per rep)`);
    }
  }
  mkdirSync(join(REPO, 'bench', 'results'), { recursive: true });
  writeFileSync(join(REPO, 'bench', 'results', 'ab.json'), `${JSON.stringify({ base: base?.label, reps, seconds, warmS, extraArgs, results, summary }, null, 2)}\n`);
} finally {
  if (upstream) await stopProcess(upstream.child);
  await redis?.stop();
  await Promise.all([...ctx.children].map((c) => stopProcess(c, 2000)));
  if (!flag('keep')) {
    base?.cleanup();
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
}
