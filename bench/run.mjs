#!/usr/bin/env node
/**
 * `npm run bench`: the gateway against a bare forwarder and direct calls, in one
 * run, interleaved (issue 4, docs/performance.md in shared/).
 *
 * Each round starts fresh processes: the fake upstream, then in a rotated order
 * "direct" (the upstream itself), the reference forwarder and the gateway, each
 * taken through the same phases. The SUT runs pinned to core 0, the upstream and
 * every load generator on core 1 (when taskset exists), at nice -10 (as root).
 * Ratios and deltas are computed within each round; the report gives their
 * median and min–max across rounds, plus absolute figures for context, on the
 * terminal and in bench/results/latest.json. Exit code 1 when a target is missed
 * in the median, 2 when the benchmark itself failed.
 *
 *   npm run bench                 full run (3 rounds, ~10 minutes)
 *   npm run bench -- --quick      1 round, short phases (smoke test, ~1.5 minutes)
 *   options: --rounds N  --soak SECONDS (default 15)  --tool wrk|autocannon  --no-pin
 *            --out FILE  --keep (keep the scratch dir)
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeCodeBody, claudeCodeHeaders, countTokensBody, smallChat, smallMessages } from './lib/bodies.mjs';
import { closedLoopTool } from './lib/closed-loop.mjs';
import { loadPhase, sampleRss, throughputPhase } from './lib/phases.mjs';
import { coreBusy, coreTimes, memoryMb, movePid, placement, stopProcess } from './lib/proc.mjs';
import { inspectorProbe } from './lib/inspector.mjs';
import { report } from './lib/report.mjs';
import { spread } from './lib/stats.mjs';
import { GATEWAY_KEY, MODELS, startGateway, startReference, startUpstream } from './lib/targets.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const option = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};

const QUICK = flag('quick');
/** Phase lengths. Full: 3 rounds in about 10 minutes; quick: 1 round of short phases. */
const D = QUICK
  ? { rounds: 1, warmS: 1, thrS: 2, bigS: 2, c1WarmMs: 300, c1Ms: 1500, olWarmMs: 500, olMs: 2000, rate: 500, st1N: 10, stWarmMs: 300, stMs: 2000, bigStN: 5, ctBursts: 3, st500Ms: 3000, soakMs: 6000 }
  : { rounds: 3, warmS: 2, thrS: 5, bigS: 4, c1WarmMs: 1000, c1Ms: 4000, olWarmMs: 2000, olMs: 6000, rate: 500, st1N: 30, stWarmMs: 1000, stMs: 5000, bigStN: 20, ctBursts: 10, st500Ms: 4000, soakMs: 15000 };
D.rounds = Number(option('rounds', D.rounds));
D.soakMs = Number(option('soak', D.soakMs / 1000)) * 1000;

const place = placement(flag('no-pin'));
const tool = closedLoopTool(option('tool', undefined));
const dir = mkdtempSync(join(tmpdir(), 'model-gateway-bench-'));
const outFile = option('out', join(REPO, 'bench', 'results', 'latest.json'));
const ctx = { place, tool, dir, children: new Set() };
const live = new Set();

const log = (s) => process.stderr.write(`${s}\n`);
const fmt = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '–');

// ---- bodies and headers ------------------------------------------------------------------------
const write = (name, obj) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(obj));
  return file;
};
const B = {
  chat: write('chat.json', smallChat('bench-chat', false)),
  chatSlow: write('chat-slow.json', smallChat('bench-chat-slow', false)),
  chatStream: write('chat-stream.json', smallChat('bench-chat', true)),
  chatStreamMem: write('chat-stream-mem.json', smallChat('bench-chat-mem', true)),
  big: write('big.json', claudeCodeBody('claude-bench', false)),
  bigStream: write('big-stream.json', claudeCodeBody('claude-bench', true)),
  translated: write('translated-stream.json', smallMessages('bench-local', true)),
  countTokens: write('count-tokens.json', countTokensBody('bench-local')),
};
const bigBytes = readFileSync(B.big).length;
const H = {
  bearer: { authorization: `Bearer ${GATEWAY_KEY}`, 'user-agent': 'OpenAI/JS 6.49.0' },
  anthropic: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01', 'user-agent': 'Anthropic/JS 0.137.0' },
  claudeCode: claudeCodeHeaders(GATEWAY_KEY),
};

/** The path a target is called on: direct goes to the upstream's own prefix for the model. */
const pathFor = (target, model, endpoint) => (target.name === 'direct' ? `${MODELS[model].prefix}${endpoint}` : endpoint);

// ---- one target, all phases --------------------------------------------------------------------
async function measureTarget(target, upstream) {
  const m = { hwmAfterMb: {} };
  /** Peak RSS after each phase, to see which one sets the peak (in the JSON only). */
  const hwm = (phase) => {
    if (target.name !== 'direct') m.hwmAfterMb[phase] = Math.round(memoryMb(target.pid).hwm * 10) / 10;
  };
  const isGw = target.name === 'gateway';
  const isDirect = target.name === 'direct';
  const chatPath = pathFor(target, 'bench-chat', '/v1/chat/completions');

  // (7) idle RSS of a fresh process, before any request.
  if (!isDirect) {
    await sleep(1000);
    m.memIdleMb = memoryMb(target.pid).rss;
  }

  // (8) the inspector (on by default in `serve`): what it holds after each phase, against its bound.
  const readInspector = isGw ? await inspectorProbe(target.inspectorLink) : undefined;
  m.inspectorOn = readInspector !== undefined;
  const inspectorAfter = async (phase) => {
    if (!readInspector) return;
    const x = await readInspector();
    (m.inspectorAfter ??= {})[phase] = { ...x, rssMb: Math.round(memoryMb(target.pid).rss * 10) / 10 };
    m.inspectorMaxBytes = x.maxBytes;
    m.inspectorPeakBytes = Math.max(m.inspectorPeakBytes ?? 0, x.bytes);
    m.inspectorEvicted = x.evicted;
  };

  // (1) small non-streaming, 50 connections: throughput and CPU per request.
  // Direct is the SUT here, so the upstream moves to the SUT core for the closed-loop phases.
  if (isDirect) movePid(place, upstream.pid, place.sutCore);
  const thr = await throughputPhase(ctx, target, {
    name: `thr-${target.name}`,
    path: chatPath,
    headers: H.bearer,
    bodyFile: B.chat,
    connections: 50,
    warmS: D.warmS,
    measureS: D.thrS,
  });
  Object.assign(m, {
    thrRps: thr.rps,
    thrCpuUs: thr.cpuUsPerReq,
    thrP50Ms: thr.p50Ms,
    thrP99Ms: thr.p99Ms,
    thrErrors: thr.errors + thr.non2xx,
    thrBusy: thr.coreBusyPct,
  });
  hwm('throughput');
  await inspectorAfter('throughput');
  log(`    thr      ${fmt(thr.rps, 0)} req/s, ${fmt(thr.cpuUsPerReq, 0)} µs CPU/req, cores ${thr.coreBusyPct.join('/')}%, errors ${m.thrErrors}`);

  // (4a) ~100 KB Claude Code body, non-streaming, 50 connections.
  const big = await throughputPhase(ctx, target, {
    name: `big-${target.name}`,
    path: pathFor(target, 'claude-bench', '/v1/messages?beta=true'),
    headers: H.claudeCode,
    bodyFile: B.big,
    connections: 50,
    warmS: D.warmS,
    measureS: D.bigS,
  });
  Object.assign(m, { bigRps: big.rps, bigCpuUs: big.cpuUsPerReq, bigErrors: big.errors + big.non2xx, bigBusy: big.coreBusyPct });
  hwm('100KB');
  await inspectorAfter('100KB');
  log(`    100KB    ${fmt(big.rps, 0)} req/s, ${fmt(big.cpuUsPerReq, 0)} µs CPU/req, cores ${big.coreBusyPct.join('/')}%, errors ${m.bigErrors}`);
  if (isDirect) movePid(place, upstream.pid, place.loadCore);

  // Serial latency (c=1).
  const c1 = await loadPhase(ctx, target, {
    mode: 'requests',
    path: chatPath,
    headers: H.bearer,
    bodyFile: B.chat,
    concurrency: 1,
    warmupMs: D.c1WarmMs,
    durationMs: D.c1Ms,
  });
  Object.assign(m, { c1P50Ms: c1.latencyMs?.p50, c1P99Ms: c1.latencyMs?.p99, c1Errors: c1.failed });
  log(`    c=1      p50 ${fmt(c1.latencyMs?.p50, 3)} ms, p99 ${fmt(c1.latencyMs?.p99, 3)} ms (${c1.completed} requests)`);

  // (2) open loop, fixed 500 req/s against the 50 ms upstream.
  const ol = await loadPhase(ctx, target, {
    mode: 'openloop',
    path: pathFor(target, 'bench-chat-slow', '/v1/chat/completions'),
    headers: H.bearer,
    bodyFile: B.chatSlow,
    rate: D.rate,
    connections: 256,
    warmupMs: D.olWarmMs,
    durationMs: D.olMs,
  });
  Object.assign(m, {
    olP50Ms: ol.latencyMs?.p50,
    olP99Ms: ol.latencyMs?.p99,
    olServiceP50Ms: ol.serviceMs?.p50,
    olCpuPct: ol.sutCpuPct,
    olErrors: ol.failed,
    olLateSends: ol.lateSends,
  });
  hwm('openloop');
  log(`    500/s    p50 ${fmt(ol.latencyMs?.p50, 2)} ms, p99 ${fmt(ol.latencyMs?.p99, 2)} ms, SUT CPU ${fmt(ol.sutCpuPct, 0)}%, failed ${ol.failed}`);

  // (3) SSE, 50 chunks: serial streams for time to first byte and gaps, then 50 concurrent for CPU per stream.
  const streamSpec = { mode: 'requests', path: chatPath, headers: H.bearer, stream: true, kind: 'chat' };
  const st1 = await loadPhase(ctx, target, { ...streamSpec, bodyFile: B.chatStream, concurrency: 1, warmupCount: 5, count: D.st1N });
  const st50 = await loadPhase(ctx, target, { ...streamSpec, bodyFile: B.chatStream, concurrency: 50, warmupMs: D.stWarmMs, durationMs: D.stMs });
  Object.assign(m, {
    st1TtfbP50Ms: st1.ttfbMs?.p50,
    st1GapP50Ms: st1.maxGapMs?.p50,
    st1GapMaxMs: st1.maxGapMs?.max,
    st1ReadsP50: st1.reads?.p50,
    st50CpuUs: (st50.sutCpuS * 1e6) / st50.completed,
    st50Streams: st50.completed,
    st50TtfbP50Ms: st50.ttfbMs?.p50,
    st50TtfbP99Ms: st50.ttfbMs?.p99,
    st50GapP50Ms: st50.maxGapMs?.p50,
    st50GapP99Ms: st50.maxGapMs?.p99,
    st50Busy: st50.coreBusyPct,
    streamFailed: st1.failed + st50.failed,
    streamErrorSamples: [...st1.errors.samples, ...st50.errors.samples].slice(0, 3),
  });
  hwm('streams');
  await inspectorAfter('streams');
  log(
    `    SSE      ttfb p50 ${fmt(m.st1TtfbP50Ms, 2)} ms, max gap p50 ${fmt(m.st1GapP50Ms, 2)} ms; ` +
      `c=50: ${m.st50Streams} streams, ${fmt(m.st50CpuUs, 0)} µs CPU/stream, failed ${m.streamFailed}`,
  );

  // (4b) the ~100 KB body, streaming (serial: time to first byte, CPU per stream).
  const bigSt = await loadPhase(ctx, target, {
    mode: 'requests',
    path: pathFor(target, 'claude-bench', '/v1/messages?beta=true'),
    headers: H.claudeCode,
    bodyFile: B.bigStream,
    stream: true,
    kind: 'messages',
    concurrency: 1,
    warmupCount: 5,
    count: D.bigStN,
  });
  Object.assign(m, { bigStTtfbP50Ms: bigSt.ttfbMs?.p50, bigStFailed: bigSt.failed });
  hwm('100KB-stream');
  log(`    100KB SSE ttfb p50 ${fmt(m.bigStTtfbP50Ms, 2)} ms, failed ${bigSt.failed}`);

  if (isGw) {
    // (5) translated stream: Messages caller, Chat upstream.
    const trSpec = {
      mode: 'requests',
      path: '/v1/messages',
      headers: H.anthropic,
      bodyFile: B.translated,
      stream: true,
      kind: 'messages',
      translated: true,
    };
    const tr1 = await loadPhase(ctx, target, { ...trSpec, concurrency: 1, warmupCount: 5, count: D.st1N });
    const tr50 = await loadPhase(ctx, target, { ...trSpec, concurrency: 50, warmupMs: D.stWarmMs, durationMs: D.stMs });
    Object.assign(m, {
      trTtfbP50Ms: tr1.ttfbMs?.p50,
      trGapP50Ms: tr1.maxGapMs?.p50,
      trCpuUs: (tr50.sutCpuS * 1e6) / tr50.completed,
      trStreams: tr50.completed,
      trEvents: tr1.events?.p50,
      trFailed: tr1.failed + tr50.failed,
      trErrorSamples: [...tr1.errors.samples, ...tr50.errors.samples].slice(0, 3),
    });
    hwm('translated');
    log(`    translated ttfb p50 ${fmt(m.trTtfbP50Ms, 2)} ms, ${fmt(m.trCpuUs, 0)} µs CPU/stream (${m.trStreams}), failed ${m.trFailed}`);

    // (6) count_tokens, bursts of 30 concurrent, estimated locally (the model's provider speaks Chat).
    const ct = await loadPhase(ctx, target, {
      mode: 'burst',
      path: '/v1/messages/count_tokens?beta=true',
      headers: { ...H.claudeCode, 'anthropic-beta': 'token-counting-2024-11-01' },
      bodyFile: B.countTokens,
      size: 30,
      warmupBursts: 1,
      bursts: D.ctBursts,
      intervalMs: 100,
      expectJsonField: 'input_tokens',
    });
    Object.assign(m, { ctP50Ms: ct.latencyMs?.p50, ctP99Ms: ct.latencyMs?.p99, ctFailed: ct.failed, ctErrorSamples: ct.errors.samples });
    log(`    count_tokens x30: p50 ${fmt(ct.latencyMs?.p50, 2)} ms, p99 ${fmt(ct.latencyMs?.p99, 2)} ms, failed ${ct.failed}`);
  }

  // (7) soak (gateway and reference): 400 req/s non-streaming plus 25 concurrent streams, RSS sampled twice a second.
  if (!isDirect) {
    const samples = await sampleRss(target.pid, 500, () =>
      Promise.all([
        loadPhase(ctx, target, { mode: 'openloop', path: chatPath, headers: H.bearer, bodyFile: B.chat, rate: 400, connections: 64, warmupMs: 0, durationMs: D.soakMs }),
        loadPhase(ctx, target, { ...streamSpec, bodyFile: B.chatStream, concurrency: 25, warmupMs: 0, durationMs: D.soakMs }),
      ]).then(([a, b]) => (m.soakFailed = a.failed + b.failed)),
    );
    const q = Math.floor(samples.length / 4);
    const early = spread(samples.slice(q, 2 * q)).median;
    const late = spread(samples.slice(3 * q)).median;
    Object.assign(m, { soakEarlyMb: early, soakLateMb: late, soakGrowthPct: (100 * (late - early)) / early });
    hwm('soak');
    await inspectorAfter('soak');
    log(`    soak     RSS ${fmt(early)} → ${fmt(late)} MB (${fmt(m.soakGrowthPct)}%), failed ${m.soakFailed}`);
  }

  // (7) peak RSS so far (every phase above ran at <= 50 concurrent), then 500 concurrent streams.
  if (!isDirect) {
    m.memPeak50Mb = memoryMb(target.pid).hwm;
    const st500 = await loadPhase(ctx, target, {
      mode: 'requests',
      path: '/v1/chat/completions',
      headers: H.bearer,
      bodyFile: B.chatStreamMem,
      stream: true,
      kind: 'chat',
      concurrency: 500,
      warmupMs: 0,
      durationMs: D.st500Ms,
      timeoutMs: 60_000,
    });
    m.memPeak500Mb = memoryMb(target.pid).hwm;
    m.st500Failed = st500.failed;
    m.st500Streams = st500.completed;
    await inspectorAfter('500 streams');
    log(`    memory   idle ${fmt(m.memIdleMb)} MB, peak@50 ${fmt(m.memPeak50Mb)} MB, peak@500 streams ${fmt(m.memPeak500Mb)} MB (${st500.completed} streams, failed ${st500.failed})`);
  }
  if (m.inspectorOn) {
    const mib = (b) => fmt(b / 2 ** 20);
    log(`    inspector held at most ${mib(m.inspectorPeakBytes)} of ${mib(m.inspectorMaxBytes)} MiB; after each phase: ` +
      Object.entries(m.inspectorAfter).map(([k, v]) => `${k} ${mib(v.bytes)} MiB/${v.size} kept`).join(', '));
  }
  return m;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function stopTarget(t) {
  live.delete(t.child);
  await stopProcess(t.child);
}

// ---- the run -----------------------------------------------------------------------------------
async function backgroundLoad(ms) {
  const a = coreTimes();
  await sleep(ms);
  return coreBusy(a, coreTimes());
}

async function main() {
  const started = Date.now();
  const meta = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    quick: QUICK,
    rounds: D.rounds,
    phases: D,
    tool: tool.name,
    placement: place,
    bigBodyBytes: bigBytes,
    loadavgBefore: loadavg(),
    idleCoreBusyPctBefore: await backgroundLoad(2000),
  };
  log(`model-gateway bench: ${D.rounds} round(s)${QUICK ? ' (quick)' : ''}, ${tool.name}, node ${process.version}, ` +
    `${place.taskset ? 'SUT pinned to core 0, upstream and load on core 1' : 'no pinning'}${place.nice ? ', nice -10' : ''}`);
  log(`machine before start: loadavg ${meta.loadavgBefore.map((x) => x.toFixed(2)).join(' ')}, cores busy ${meta.idleCoreBusyPctBefore.join('/')}% with nothing under test`);

  const rounds = [];
  for (let r = 0; r < D.rounds; r++) {
    const names = ['direct', 'reference', 'gateway'];
    const order = [...names.slice(r % 3), ...names.slice(0, r % 3)];
    log(`\nround ${r + 1}/${D.rounds}: ${order.join(' → ')}`);
    const background = await backgroundLoad(1000);
    log(`  (cores busy ${background.join('/')}% with nothing under test)`);
    const upstream = await startUpstream(place, place.loadCore);
    live.add(upstream.child);
    const round = { order, backgroundBusyPct: background, targets: {} };
    try {
      for (const name of order) {
        log(`  ${name}`);
        let target;
        if (name === 'direct') target = { name, pid: upstream.pid, origin: upstream.origin };
        else if (name === 'reference') target = { name, ...(await startReference(place, upstream.origin)) };
        else target = { name, ...(await startGateway(place, dir, upstream.origin, { tag: `gw-r${r + 1}` })) };
        if (target.child) live.add(target.child);
        try {
          round.targets[name] = await measureTarget(target, upstream);
        } catch (err) {
          const exited = target.child && target.child.exitCode !== null ? ` (${name} exited with ${target.child.exitCode})` : '';
          const stderr = target.child?.stderrText?.() ?? upstream.child.stderrText();
          throw new Error(`${name}: ${err.message}${exited}${stderr ? `\n--- its stderr:\n${stderr.slice(-3000)}` : ''}`);
        } finally {
          if (target.child) await stopTarget(target);
        }
      }
    } finally {
      live.delete(upstream.child);
      await stopProcess(upstream.child);
    }
    rounds.push(round);
  }

  meta.loadavgAfter = loadavg();
  meta.durationS = (Date.now() - started) / 1000;
  const { text, json, failed } = report(meta, rounds);
  process.stdout.write(text);
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify(json, null, 2)}\n`);
  log(`\nwritten ${outFile} (${fmt(meta.durationS, 0)} s)`);
  return failed ? 1 : 0;
}

async function cleanup() {
  for (const c of ctx.children) c.kill('SIGKILL');
  await Promise.all([...live].map((c) => stopProcess(c, 2000)));
  if (!flag('keep')) rmSync(dir, { recursive: true, force: true });
  else log(`scratch files kept in ${dir}`);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    log(`${signal}: stopping`);
    cleanup().finally(() => process.exit(130));
  });
}

let code;
try {
  code = await main();
} catch (err) {
  log(`bench failed: ${err?.stack ?? err}`);
  code = 2;
}
await cleanup();
process.exit(code);
