/**
 * Turns the rounds into the report: ratios and deltas computed within each
 * round, their median and min–max across rounds, pass/fail against the
 * targets (judged on the median), and absolute figures for context. Rows of
 * fresh pairs loaded together pool every round's pairs instead (`pooled`).
 */
import { ratioInterval, spread } from './stats.mjs';

const div = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : NaN);
const sub = (a, b) => (Number.isFinite(a) && Number.isFinite(b) ? a - b : NaN);
const sum = (...xs) => xs.reduce((a, x) => a + (Number.isFinite(x) ? x : 0), 0);

/**
 * Each row: how to compute it from one round's targets, and the issue's target when it has one. `f` and `ref` get
 * `{ g, r, d, t }`: the gateway's, the reference's and the direct turn's figures, and all the round's targets.
 */
const ROWS = [
  { section: 'Throughput and CPU, small non-streaming, 50 connections' },
  // Against the reference measured interleaved with the gateway (A-B-C-C-B-A, see run.mjs); in its own turn as context.
  { key: 'thrVsRef', label: 'throughput gateway / reference', unit: 'x', target: ['>=', 0.7], f: ({ g }) => div(g.thrRps, g.pairedRefThrRps) },
  { key: 'cpuVsRef', label: 'CPU per request gateway / reference', unit: 'x', target: ['<=', 1.5], f: ({ g }) => div(g.thrCpuUs, g.pairedRefThrCpuUs) },
  { key: 'thrVsRefInTurn', label: 'throughput gateway / reference measured in its turn', unit: 'x', f: ({ g, r }) => div(g.thrRps, r.thrRps) },
  { key: 'cpuVsRefInTurn', label: 'CPU per request gateway / reference measured in its turn', unit: 'x', f: ({ g, r }) => div(g.thrCpuUs, r.thrCpuUs) },
  { key: 'thrVsDirect', label: 'throughput gateway / direct', unit: 'x', f: ({ g, d }) => div(g.thrRps, d.thrRps) },
  { key: 'refVsDirect', label: 'throughput reference / direct', unit: 'x', f: ({ r, d }) => div(r.thrRps, d.thrRps) },
  { key: 'cpuVsDirect', label: 'CPU per request gateway / direct', unit: 'x', f: ({ g, d }) => div(g.thrCpuUs, d.thrCpuUs) },
  { section: '~100 KB Claude Code request' },
  { key: 'bigVsRef', label: 'throughput gateway / reference (raw bytes)', unit: 'x', target: ['>=', 0.8], f: ({ g, r }) => div(g.bigRps, r.bigRps) },
  { key: 'bigCpuVsRef', label: 'CPU per request gateway / reference', unit: 'x', f: ({ g, r }) => div(g.bigCpuUs, r.bigCpuUs) },
  { key: 'bigStAddedTtfb', label: 'streaming: added time to first byte', unit: 'ms', f: ({ g, d }) => sub(g.bigStTtfbP50Ms, d.bigStTtfbP50Ms) },
  { section: 'Added latency vs direct' },
  { key: 'addedC1P50', label: 'serial (c=1) p50, gateway', unit: 'ms', f: ({ g, d }) => sub(g.c1P50Ms, d.c1P50Ms) },
  { key: 'refAddedC1P50', label: 'serial (c=1) p50, reference', unit: 'ms', f: ({ r, d }) => sub(r.c1P50Ms, d.c1P50Ms) },
  // Judged against the reference forwarder in the same round: the hop itself costs more than any absolute bound
  // these VMs could hold from one run to the next, for the bare forwarder too.
  { key: 'c1P50OverRef', label: 'serial (c=1) p50, gateway − reference', unit: 'ms', target: ['<=', 0.3], f: ({ g, r }) => sub(g.c1P50Ms, r.c1P50Ms) },
  {
    key: 'addedOlP50',
    label: '500 req/s, 50 ms upstream: p50, gateway',
    unit: 'ms',
    target: ['<=', 1],
    f: ({ g, d }) => sub(g.olP50Ms, d.olP50Ms),
    ref: ({ r, d }) => sub(r.olP50Ms, d.olP50Ms),
  },
  {
    key: 'addedOlP99',
    label: '500 req/s, 50 ms upstream: p99, gateway',
    unit: 'ms',
    target: ['<=', 5],
    f: ({ g, d }) => sub(g.olP99Ms, d.olP99Ms),
    ref: ({ r, d }) => sub(r.olP99Ms, d.olP99Ms),
  },
  { key: 'refAddedOlP50', label: '500 req/s: p50, reference', unit: 'ms', f: ({ r, d }) => sub(r.olP50Ms, d.olP50Ms) },
  { key: 'refAddedOlP99', label: '500 req/s: p99, reference', unit: 'ms', f: ({ r, d }) => sub(r.olP99Ms, d.olP99Ms) },
  { section: 'Streaming, 50 chunks 2 ms apart' },
  { key: 'addedTtfb', label: 'added time to first byte p50 (serial)', unit: 'ms', f: ({ g, d }) => sub(g.st1TtfbP50Ms, d.st1TtfbP50Ms) },
  { key: 'refAddedTtfb', label: 'added time to first byte p50, reference', unit: 'ms', f: ({ r, d }) => sub(r.st1TtfbP50Ms, d.st1TtfbP50Ms) },
  { key: 'ttfbOverRef', label: 'time to first byte p50, gateway − reference', unit: 'ms', target: ['<=', 0.3], f: ({ g, r }) => sub(g.st1TtfbP50Ms, r.st1TtfbP50Ms) },
  // A byte relay (socat, when installed) on the proxies' core, in the direct turn: what the hop alone adds.
  { key: 'relayAddedTtfb', label: 'added time to first byte p50, a byte relay (socat)', unit: 'ms', f: ({ d }) => sub(d.relayTtfbP50Ms, d.st1TtfbP50Ms) },
  { key: 'addedGap', label: 'max inter-chunk gap vs direct (median stream)', unit: 'ms', target: ['<=', 2], f: ({ g, d }) => sub(g.st1GapP50Ms, d.st1GapP50Ms) },
  // Alternating serial streams to the gateway, a reference forwarder and the upstream, in the gateway's turn (see
  // run.mjs). Each proxy idles through the other two's streams, so both are slower than streaming back to back:
  // context, not the target's figure. Paired so, the gateway − reference difference holds still between rounds.
  { key: 'altTtfbOverRef', label: 'alternating: time to first byte p50, gateway − reference', unit: 'ms', f: ({ g }) => sub(g.altTtfbP50Ms, g.altRefTtfbP50Ms) },
  { key: 'altAddedTtfb', label: 'alternating: added time to first byte p50, gateway', unit: 'ms', f: ({ g }) => sub(g.altTtfbP50Ms, g.altDirectTtfbP50Ms) },
  { key: 'altRefAddedTtfb', label: 'alternating: added time to first byte p50, reference', unit: 'ms', f: ({ g }) => sub(g.altRefTtfbP50Ms, g.altDirectTtfbP50Ms) },
  { key: 'altAddedGap', label: 'alternating: max inter-chunk gap vs direct', unit: 'ms', f: ({ g }) => sub(g.altGapP50Ms, g.altDirectGapP50Ms) },
  { key: 'addedGap50', label: 'max inter-chunk gap vs direct, 50 concurrent', unit: 'ms', f: ({ g, d }) => sub(g.st50GapP50Ms, d.st50GapP50Ms) },
  { key: 'addedTtfb50', label: 'added time to first byte p50, 50 concurrent', unit: 'ms', f: ({ g, d }) => sub(g.st50TtfbP50Ms, d.st50TtfbP50Ms) },
  // Against the reference's 50 streams run just after the gateway's, in the gateway's turn; in the reference's own turn as context.
  { key: 'streamCpuVsRef', label: 'CPU per stream gateway / reference', unit: 'x', target: ['<=', 1.5], f: ({ g }) => div(g.st50CpuUs, g.pairedRefSt50CpuUs) },
  { key: 'streamCpuVsRefInTurn', label: 'CPU per stream gateway / reference measured in its turn', unit: 'x', f: ({ g, r }) => div(g.st50CpuUs, r.st50CpuUs) },
  { key: 'streamFailed', label: 'streams missing or changing an event (gateway)', unit: '', target: ['<=', 0], f: ({ g }) => sum(g.streamFailed, g.bigStFailed, g.trFailed, g.bedrockFailed, g.st50MemFailed, g.st500Failed) },
  { key: 'trCpuVsPassthrough', label: 'CPU per stream translated (Messages→Chat) / passthrough', unit: 'x', target: ['<=', 2], f: ({ g }) => div(g.trCpuUs, g.st50CpuUs) },
  { key: 'trAddedTtfb', label: 'translated: added time to first byte vs direct Chat', unit: 'ms', f: ({ g, d }) => sub(g.trTtfbP50Ms, d.st1TtfbP50Ms) },
  // Issue 24: the same Messages stream from a bedrock provider (event-stream decoded) and an anthropic one (passed
  // through), in one gateway process, A-B-B-A (bench/lib/bedrock-streams.mjs). Bearer key: no SigV4 in it.
  { key: 'bedrockCpuVsAnthropic', label: 'CPU per stream Messages from bedrock (event-stream) / anthropic (SSE)', unit: 'x', target: ['<=', 1.2], f: ({ g }) => div(g.bedrockCpuUs, g.bedrockPairAnthropicCpuUs) },
  { section: 'count_tokens, bursts of 30, estimated locally' },
  { key: 'ctP99', label: 'count_tokens p99', unit: 'ms', target: ['<=', 20], f: ({ g }) => g.ctP99Ms },
  { key: 'ctFirstBurst', label: 'count_tokens, slowest in the first warm-up burst', unit: 'ms', f: ({ g }) => g.ctWarmBurstMaxMs?.[0] },
  { section: 'Memory (gateway)' },
  { key: 'memIdle', label: 'RSS idle', unit: 'MB', target: ['<=', 70], f: ({ g }) => g.memIdleMb, ref: ({ r }) => r.memIdleMb },
  { key: 'refMemIdle', label: 'RSS idle, reference', unit: 'MB', f: ({ r }) => r.memIdleMb },
  { key: 'memSettled', label: 'RSS idle 12 s after start (start-up heap trimmed)', unit: 'MB', f: ({ g }) => g.memSettledMb },
  { key: 'refMemSettled', label: 'RSS idle 12 s after start, reference', unit: 'MB', f: ({ r }) => r.memSettledMb },
  { key: 'memPeak50', label: 'peak RSS, 50 concurrent streams (fresh process)', unit: 'MB', target: ['<=', 150], f: ({ g }) => g.memPeak50Mb, ref: ({ r }) => r.memPeak50Mb },
  { key: 'refMemPeak50', label: 'peak RSS, 50 concurrent streams, reference', unit: 'MB', f: ({ r }) => r.memPeak50Mb },
  { key: 'memPeakSmall', label: 'peak RSS after the small-request phase only (c=50)', unit: 'MB', f: ({ g }) => g.hwmAfterMb?.throughput },
  { key: 'memPeakLoad', label: 'peak RSS over all load phases (c <= 50, 100 KB bodies too)', unit: 'MB', f: ({ g }) => g.memPeakLoadMb, ref: ({ r }) => r.memPeakLoadMb },
  { key: 'refMemPeakLoad', label: 'peak RSS over all load phases, reference', unit: 'MB', f: ({ r }) => r.memPeakLoadMb },
  { key: 'memPeakLoadOverRef', label: 'peak RSS over all load phases, gateway − reference', unit: 'MB', f: ({ g, r }) => sub(g.memPeakLoadMb, r.memPeakLoadMb) },
  { key: 'memPeak500', label: 'peak RSS, 500 concurrent streams', unit: 'MB', target: ['<=', 300], f: ({ g }) => g.memPeak500Mb, ref: ({ r }) => r.memPeak500Mb },
  { key: 'soakGrowth', label: 'RSS growth over the soak', unit: '%', target: ['<=', 10], f: ({ g }) => g.soakGrowthPct },
  { key: 'refSoakGrowth', label: 'RSS growth over the soak, reference', unit: '%', f: ({ r }) => r.soakGrowthPct },
  { key: 'memPeak50VsRef', label: 'peak RSS at 50 streams gateway / reference', unit: 'x', f: ({ g, r }) => div(g.memPeak50Mb, r.memPeak50Mb) },
  { key: 'memPeak500VsRef', label: 'peak RSS at 500 streams gateway / reference', unit: 'x', f: ({ g, r }) => div(g.memPeak500Mb, r.memPeak500Mb) },
  { section: 'Inspector as `serve` leaves it (history on, nobody watching): the gateway vs itself with --no-inspector, small' },
  // Fresh pairs loaded at the same time (bench/lib/together.mjs), c=25 each, as the ledger's row below.
  { key: 'inspectorCpuRatio', label: 'CPU per request, inspector on / --no-inspector (all pairs)', unit: 'x', target: ['<=', 1.05], pairs: (t) => t.inspectorPairs?.pairs },
  // No target: measured one after the other in scenario 1's rounds (c=50), where two processes of one build differ by 10-30 %.
  { key: 'noInspCpuRatio', label: 'CPU per request, inspector on / --no-inspector (scenario 1, one after the other)', unit: 'x', f: ({ g, t }) => div(g.thrCpuUs, t.gatewayNoInspector?.thrCpuUs) },
  { key: 'noInspThrRatio', label: 'throughput, inspector on / --no-inspector', unit: 'x', f: ({ g, t }) => div(g.thrRps, t.gatewayNoInspector?.thrRps) },
  { key: 'noInspIdleMb', label: 'RSS idle, inspector on − --no-inspector', unit: 'MB', delta: true, f: ({ g, t }) => sub(g.memIdleMb, t.gatewayNoInspector?.memIdleMb) },
  { key: 'inspectorUnwatchedMb', label: 'most MiB it held after any phase (bodies of 5 requests a second at most, bursts of 20)', unit: 'MB', f: ({ g }) => g.inspectorPeakBytes / 2 ** 20 },
  { key: 'inspectorUnwatchedHeld', label: 'most bytes held / its bound (inspector.memoryMiB)', unit: 'x', target: ['<=', 1], optional: true, f: ({ g }) => div(g.inspectorPeakBytes, g.inspectorMaxBytes) },
  { section: 'Usage ledger and cost (issue 26): the gateway vs itself with `server.ledger: false`, small, both loaded together, c=25 each' },
  // Fresh pairs loaded at the same time (bench/lib/together.mjs); each pair is still two processes of one build,
  // which differ by about ±7 % (bench/pairs.mjs --variant same), so the figure is of every round's pairs together.
  { key: 'ledgerCpuRatio', label: 'CPU per request, ledger on / off (all pairs)', unit: 'x', target: ['<=', 1.03], pairs: (t) => t.ledgerPairs?.pairs },
  { section: 'Inspector watched (fresh gateway, a page\'s event stream open and read): 100 KB load c=50, then 50 streams' },
  {
    key: 'inspectorHeld',
    label: 'most bytes held / its bound (--inspector-memory)',
    unit: 'x',
    target: ['<=', 1],
    optional: true,
    f: ({ t }) => div(t.watched?.heldBytes, t.watched?.maxBytes),
  },
  { key: 'inspectorHeldMb', label: 'most MiB held', unit: 'MB', f: ({ t }) => t.watched?.heldBytes / 2 ** 20 },
  { key: 'inspectorBoundMb', label: 'its bound, MiB', unit: 'MB', f: ({ t }) => t.watched?.maxBytes / 2 ** 20 },
  { key: 'inspectorKept', label: 'exchanges kept at the end (--inspector-keep: 300)', unit: '', f: ({ t }) => t.watched?.reads?.streams?.size },
  { key: 'inspectorEvicted', label: 'exchanges dropped to stay within its bounds', unit: '', f: ({ t }) => t.watched?.evicted },
  { key: 'watchedPeakRss', label: 'peak RSS (VmHWM) of that process (no target)', unit: 'MB', f: ({ t }) => t.watched?.peakRssMb },
  { key: 'watchedRss', label: 'RSS after', unit: 'MB', f: ({ t }) => t.watched?.rssMb },
  { key: 'watchedBigCpuVsUnwatched', label: 'CPU per 100 KB request, watched (fresh process) / unwatched', unit: 'x', f: ({ g, t }) => div(t.watched?.bigCpuUs, g.bigCpuUs) },
  { section: 'Recording: --log-file with bodies (every exchange written whole; report only, no target)' },
  { key: 'recThrVsRef', label: 'throughput recording / reference, small', unit: 'x', f: ({ r, t }) => div(t.recording?.thrRps, r.thrRps) },
  { key: 'recCpuVsRef', label: 'CPU per request recording / reference, small', unit: 'x', f: ({ r, t }) => div(t.recording?.thrCpuUs, r.thrCpuUs) },
  { key: 'recBigVsRef', label: 'throughput recording / reference, 100 KB', unit: 'x', f: ({ r, t }) => div(t.recording?.bigRps, r.bigRps) },
  { key: 'recBigCpuVsRef', label: 'CPU per request recording / reference, 100 KB', unit: 'x', f: ({ r, t }) => div(t.recording?.bigCpuUs, r.bigCpuUs) },
  { key: 'recCpuVsGw', label: 'CPU per request recording / gateway (--no-log-bodies), small', unit: 'x', f: ({ g, t }) => div(t.recording?.thrCpuUs, g.thrCpuUs) },
  { key: 'recBigCpuVsGw', label: 'CPU per request recording / gateway (--no-log-bodies), 100 KB', unit: 'x', f: ({ g, t }) => div(t.recording?.bigCpuUs, g.bigCpuUs) },
  { key: 'recLogKbBig', label: 'log file per 100 KB request', unit: 'KB', f: ({ t }) => t.recording?.logBytesPerBigReq / 1024 },
  { section: 'Correctness' },
  {
    key: 'gwFailures',
    label: 'failed requests and streams, all gateway phases and variants',
    unit: '',
    target: ['<=', 0],
    f: ({ g, t }) =>
      sum(g.thrErrors, g.bigErrors, g.c1Errors, g.olErrors, g.streamFailed, g.bigStFailed, g.trFailed, g.bedrockFailed, g.ctFailed, g.soakFailed, g.st50MemFailed, g.st500Failed) +
      sum(t.gatewayNoInspector?.thrErrors, t.ledgerPairs?.errors, t.inspectorPairs?.errors, t.watched?.failed, t.watched?.watcher?.parseErrors, t.recording?.errors),
  },
  { key: 'refFailures', label: 'failed requests and streams, reference', unit: '', f: ({ g, r }) => sum(r.thrErrors, r.bigErrors, r.c1Errors, r.olErrors, r.streamFailed, r.bigStFailed, r.soakFailed, r.st50MemFailed, r.st500Failed, g.pairedRefFailed) },
  { key: 'directFailures', label: 'failed streams, direct calls (a broken benchmark)', unit: '', target: ['<=', 0], optional: true, f: ({ g, d }) => sum(g.altDirectFailed, d.relayFailed) },
];

/** Absolute figures, per target: median [min–max] across rounds. */
const ABSOLUTE = [
  ['thrRps', 'req/s, small, c=50', 0],
  ['thrCpuUs', 'CPU µs/request, small', 0],
  ['thrP50Ms', 'closed-loop p50 ms, c=50', 2],
  // Measured in the gateway's turn, interleaved with it: shown in the gateway's column.
  ['pairedRefThrRps', 'reference interleaved: req/s, small', 0],
  ['pairedRefThrCpuUs', 'reference interleaved: CPU µs/request', 0],
  ['bigRps', 'req/s, 100 KB, c=50', 0],
  ['bigCpuUs', 'CPU µs/request, 100 KB', 0],
  ['c1P50Ms', 'serial p50 ms', 3],
  ['olP50Ms', '500 req/s p50 ms', 2],
  ['olP99Ms', '500 req/s p99 ms', 2],
  ['olCpuPct', 'SUT CPU % at 500 req/s', 0],
  ['st1TtfbP50Ms', 'SSE time to first byte p50 ms', 2],
  ['st1GapP50Ms', 'SSE max gap, median stream ms', 2],
  // In the direct turn: shown in the direct column.
  ['relayTtfbP50Ms', 'byte relay (socat): ttfb p50 ms', 2],
  // Alternating serial streams, in the gateway's turn: shown in the gateway's column.
  ['altTtfbP50Ms', 'alternating: ttfb p50 ms', 2],
  ['altRefTtfbP50Ms', 'alternating: reference ttfb p50 ms', 2],
  ['altDirectTtfbP50Ms', 'alternating: direct ttfb p50 ms', 2],
  ['st1ReadsP50', 'SSE body reads per stream (serial)', 0],
  ['st50CpuUs', 'CPU µs/stream (50 concurrent)', 0],
  ['pairedRefSt50CpuUs', 'reference beside it: CPU µs/stream', 0],
  ['st50Streams', 'streams completed (50 concurrent)', 0],
  ['bigStTtfbP50Ms', '100 KB SSE time to first byte ms', 2],
  ['trCpuUs', 'translated CPU µs/stream', 0],
  ['trTtfbP50Ms', 'translated time to first byte ms', 2],
  ['bedrockPairAnthropicCpuUs', 'Messages from anthropic: CPU µs/stream', 0],
  ['bedrockCpuUs', 'Messages from bedrock: CPU µs/stream', 0],
  ['ctP50Ms', 'count_tokens p50 ms', 2],
  ['ctP99Ms', 'count_tokens p99 ms', 2],
  ['memIdleMb', 'RSS idle MB', 1],
  ['memSettledMb', 'RSS idle 12 s after start MB', 1],
  ['memPeakLoadMb', 'peak RSS MB, all load phases (c <= 50)', 1],
  ['memPeak50Mb', 'peak RSS MB, 50 streams (fresh process)', 1],
  ['memPeak500Mb', 'peak RSS MB, 500 streams', 1],
  ['soakEarlyMb', 'soak RSS MB, early', 1],
  ['soakLateMb', 'soak RSS MB, late', 1],
];

/** The gateway's variants (targets gatewayNoInspector, watched, recording), same figures where they ran. */
const VARIANT_ABSOLUTE = [
  ['thrRps', 'req/s, small, c=50', 0],
  ['thrCpuUs', 'CPU µs/request, small', 0],
  ['bigRps', 'req/s, 100 KB, c=50', 0],
  ['bigCpuUs', 'CPU µs/request, 100 KB', 0],
  ['memIdleMb', 'RSS idle MB', 1],
  ['peakRssMb', 'peak RSS MB (at its end)', 1],
];

const fmt = (x, d) => (Number.isFinite(x) ? x.toFixed(d) : '–');
const digits = (unit, x) => (unit === 'x' ? 2 : unit === 'ms' ? (Math.abs(x) < 10 ? 2 : 1) : unit === '' ? 0 : 1);
const signed = (delta, x) => (delta && Number.isFinite(x) && x > 0 ? '+' : '');
const show = (unit, x, delta = false) => `${signed(delta, x)}${fmt(x, digits(unit, x))}${unit === 'x' ? 'x' : unit && unit !== '' ? ` ${unit}` : ''}`;

function pad(cells, widths) {
  return cells.map((c, i) => String(c).padEnd(widths[i])).join('  ').trimEnd();
}

function compute(f, round) {
  const { gateway: g = {}, reference: r = {}, direct: d = {} } = round.targets;
  try {
    return f({ g, r, d, t: round.targets });
  } catch {
    return NaN;
  }
}

/**
 * Ratios of fresh pairs from all rounds as one sample: their geometric mean in place of the median, and its 95 %
 * interval in place of the range, which a few pairs a round could not give apart.
 */
function pooled(ratios) {
  const g = ratioInterval(ratios);
  return { median: g.mean, min: g.low, max: g.high, n: g.n, interval: true };
}

const meets = ([op, limit], x) => Number.isFinite(x) && (op === '>=' ? x >= limit : x <= limit);

export function report(meta, rounds) {
  const rows = [];
  const lines = [];
  const failedTargets = [];
  for (const row of ROWS) {
    if (row.section) {
      rows.push({ section: row.section });
      continue;
    }
    const values = row.pairs ? rounds.flatMap((rd) => (row.pairs(rd.targets) ?? []).map((p) => p.ratio)) : rounds.map((rd) => compute(row.f, rd));
    const s = row.pairs ? pooled(values) : spread(values);
    let pass;
    let refMisses;
    if (row.target && !(row.optional && s.n === 0)) {
      pass = meets(row.target, s.median);
      if (!pass) failedTargets.push(row.key);
      // Whether the reference forwarder itself misses the same absolute target in this run (the machine's floor).
      if (!pass && row.ref) refMisses = !meets(row.target, spread(rounds.map((rd) => compute(row.ref, rd))).median);
    }
    rows.push({ key: row.key, label: row.label, unit: row.unit, target: row.target, delta: row.delta, median: s.median, min: s.min, max: s.max, interval: s.interval, values, pass, refMisses });
  }

  const widths = [62, 11, 11, 24, 14];
  lines.push('');
  lines.push(`model-gateway benchmark: ${meta.rounds} round(s)${meta.quick ? ' (quick)' : ''}, node ${meta.node}, ${meta.cpus} cores, ${meta.tool}`);
  lines.push(
    `machine load: loadavg ${meta.loadavgBefore.map((x) => x.toFixed(2)).join(' ')} before, ${meta.loadavgAfter.map((x) => x.toFixed(2)).join(' ')} after; ` +
      `${meta.idleCoreBusyPctBefore.join('/')}% core busy with nothing under test`,
  );
  if (meta.gatewayServe) {
    const gs = meta.gatewayServe;
    lines.push(`gateway: ${gs.gateway} (inspector on, nobody watching); A/B: ${gs.gatewayNoInspector}; recording: ${gs.recording}`);
  }
  lines.push(`cores busy with nothing under test, before each round: ${rounds.map((rd) => (rd.backgroundBusyPct ?? []).join('/')).join(', ')}%`);
  lines.push(
    'Ratios and deltas are computed within each round; median [min – max] across rounds. Targets from issues 4 and 24, judged on the median.',
    "Rows of fresh pairs (all pairs): every round's pairs together, their geometric mean and its 95 % interval; judged on the mean.",
  );
  for (const row of rows) {
    if (row.section) {
      lines.push('', row.section);
      lines.push(pad(['  metric', 'target', 'median', '[min – max]', ''], widths));
      continue;
    }
    const delta = row.delta || /^(added|refAdded|altAdded|altRefAdded)|AddedTtfb$|OverRef$/.test(row.key);
    const target = row.target ? `${row.target[0]} ${show(row.unit, row.target[1])}` : '';
    const between = `${show(row.unit, row.min, delta)} – ${show(row.unit, row.max, delta)}`;
    const range = row.interval ? (row.values.length > 1 ? `95 %: ${between}` : '') : rounds.length > 1 ? `[${between}]` : '';
    const verdict = row.pass === undefined ? '' : row.pass ? 'pass' : row.refMisses ? 'MISS (ref too)' : 'MISS';
    lines.push(pad([`  ${row.label}`, target, show(row.unit, row.median, delta), range, verdict], widths));
  }

  const absolute = {};
  const aw = [40, 24, 24, 24];
  lines.push('', 'Absolute figures (context only; this VM swings 30-50 % between rounds): median [min – max]');
  lines.push(pad(['  metric', 'direct', 'reference', 'gateway'], aw));
  for (const [key, label, d] of ABSOLUTE) {
    const cells = [`  ${label}`];
    absolute[key] = {};
    for (const name of ['direct', 'reference', 'gateway']) {
      const s = spread(rounds.map((rd) => rd.targets[name]?.[key]));
      absolute[key][name] = s;
      cells.push(s.n === 0 ? '' : rounds.length > 1 ? `${fmt(s.median, d)} [${fmt(s.min, d)}–${fmt(s.max, d)}]` : fmt(s.median, d));
    }
    lines.push(pad(cells, aw));
  }
  const variants = {};
  const vw = [40, 24, 24, 24];
  lines.push('', 'Gateway variants (context only): median [min – max]');
  lines.push(pad(['  metric', '--no-inspector', 'inspector watched', 'recording (bodies)'], vw));
  for (const [key, label, d] of VARIANT_ABSOLUTE) {
    const cells = [`  ${label}`];
    variants[key] = {};
    for (const name of ['gatewayNoInspector', 'watched', 'recording']) {
      const s = spread(rounds.map((rd) => rd.targets[name]?.[key]));
      variants[key][name] = s;
      cells.push(s.n === 0 ? '' : rounds.length > 1 ? `${fmt(s.median, d)} [${fmt(s.min, d)}–${fmt(s.max, d)}]` : fmt(s.median, d));
    }
    lines.push(pad(cells, vw));
  }
  const held = spread(rounds.map((rd) => rd.targets.watched?.heldBytes / 2 ** 20));
  const bound = spread(rounds.map((rd) => rd.targets.watched?.maxBytes / 2 ** 20));
  const peak = spread(rounds.map((rd) => rd.targets.watched?.peakRssMb));
  if (held.n > 0) lines.push(`inspector watched: held ${fmt(held.median, 1)} of ${fmt(bound.median, 0)} MiB, peak RSS ${fmt(peak.median, 1)} MB (median of rounds)`);
  const busy = (name, key) => rounds.map((rd) => (rd.targets[name]?.[key] ?? []).join('/')).join(', ');
  lines.push('', `core busy % (SUT core/load core), per round: throughput: direct ${busy('direct', 'thrBusy')}; reference ${busy('reference', 'thrBusy')}; gateway ${busy('gateway', 'thrBusy')}`);
  lines.push(`  --no-inspector ${busy('gatewayNoInspector', 'thrBusy')}; recording ${busy('recording', 'thrBusy')} (small), ${busy('recording', 'bigBusy')} (100 KB)`);
  lines.push(`  50 concurrent streams: direct ${busy('direct', 'st50Busy')}; reference ${busy('reference', 'st50Busy')}; gateway ${busy('gateway', 'st50Busy')}; gateway, bedrock ${busy('gateway', 'bedrockBusy')}`);
  lines.push('  (a throughput figure is SUT-bound when the SUT core is >= 95 % busy and the load core < 90 %)');
  const samples = rounds.flatMap((rd) => [...(rd.targets.gateway?.streamErrorSamples ?? []), ...(rd.targets.watched?.errorSamples ?? []), ...(rd.targets.gateway?.trErrorSamples ?? []), ...(rd.targets.gateway?.bedrockErrorSamples ?? []), ...(rd.targets.gateway?.ctErrorSamples ?? [])]);
  if (samples.length) lines.push(`gateway error samples: ${samples.slice(0, 3).join(' | ')}`);
  lines.push('');
  lines.push(
    failedTargets.length === 0
      ? 'All targets met (median of rounds).'
      : `Targets missed (median of rounds): ${failedTargets.join(', ')}`,
  );
  const machineBound = rows.filter((r) => r.refMisses).map((r) => r.key);
  if (machineBound.length > 0) {
    lines.push(
      `  of which the reference forwarder misses too on this machine (MISS (ref too); still a miss, see the gateway − reference rows): ${machineBound.join(', ')}`,
    );
  }
  lines.push('');

  const json = {
    meta,
    summary: rows.filter((r) => !r.section),
    absolute,
    variants,
    failedTargets,
    rounds,
  };
  return { text: lines.join('\n'), json, failed: failedTargets.length > 0 };
}
