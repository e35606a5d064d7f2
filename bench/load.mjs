#!/usr/bin/env node
/**
 * The benchmark's own load client, run as a separate process (pinned next to the
 * upstream, away from the system under test). One mode per invocation:
 *
 *   requests  closed loop, `concurrency` workers, for `durationMs` or `count` requests;
 *             non-streaming requests time the whole answer; streaming ones record
 *             time to first body byte, the largest gap between body chunks, and
 *             check every SSE event arrived (count and content).
 *   openloop  fixed-rate open loop: request i is due at start + i/rate, whether or
 *             not earlier ones have finished; latency is measured from the due time
 *             (coordinated omission corrected), also reported from the actual send.
 *   burst     `size` requests at once, `bursts` times, `intervalMs` apart.
 *   interleaved  serial requests (streams, or whole answers with `stream: false`) to several targets
 *             (`targets`: name, origin, path, headers) in a balanced turn, `count` each, with the
 *             figures of `requests` per target.
 *
 * Every mode runs `warmupMs` (or `warmupBursts`, `warmupCount`) of the same load first and
 * discards it, then prints `MEASURE_START` on stderr, measures, waits for the
 * last measured request, prints `MEASURE_END`, then the result as JSON on stdout.
 * The orchestrator reads the SUT's CPU time at the two markers.
 *
 * Usage: node bench/load.mjs SPEC.json
 * Every loop is bounded by time or count; every request by `timeoutMs`.
 */
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { balancedOrder } from './lib/order.mjs';
import { STREAM_TEXT, expectedEvents } from './lib/shapes.mjs';
import { summarize } from './lib/stats.mjs';

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));

/**
 * With `spec.handshake` (requests mode), waits after each MEASURE_ marker for a line on stdin: the
 * caller reads the target at a moment when no request is in flight (instructions.mjs has callgrind
 * zero and dump its counters there).
 */
let stdinLines;
function handshake() {
  if (!spec.handshake) return Promise.resolve();
  stdinLines ??= (async function* () {
    let buffered = '';
    for await (const chunk of process.stdin) {
      buffered += chunk;
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        yield buffered.slice(0, i);
        buffered = buffered.slice(i + 1);
      }
    }
  })();
  return stdinLines.next();
}
const body = readFileSync(spec.bodyFile);
const headers = { 'content-type': 'application/json', ...spec.headers };
const timeoutMs = spec.timeoutMs ?? 30_000;
const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const poolFor = (origin, connections) =>
  new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
/** Where a request goes: the spec's own target, or (interleaved mode) one of `spec.targets`. */
const main = {
  name: 'target',
  pool: poolFor(spec.origin, spec.connections ?? Math.max(1, spec.concurrency ?? spec.size ?? 64)),
  path: spec.path,
  headers,
};
const pools = [main.pool];

const errors = { count: 0, samples: [] };
function noteError(message) {
  errors.count++;
  if (errors.samples.length < 5) errors.samples.push(message);
}

/** One request, timed. Streams are checked event by event against what the fake upstream sends. */
async function once(to = main) {
  const t0 = now();
  const res = { ok: false, latencyMs: 0, ttfbMs: undefined, maxGapMs: 0, events: 0, reads: 0 };
  const fail = (message) => noteError(to === main ? message : `${to.name}: ${message}`);
  try {
    const { statusCode, body: rb } = await to.pool.request({
      method: 'POST',
      path: to.path,
      headers: to.headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!spec.stream) {
      const buf = Buffer.from(await rb.arrayBuffer());
      res.latencyMs = now() - t0;
      if (statusCode !== 200) fail(`status ${statusCode}: ${buf.toString('utf8').slice(0, 200)}`);
      else if (spec.expectJsonField && !(spec.expectJsonField in JSON.parse(buf.toString('utf8')))) fail(`no ${spec.expectJsonField}`);
      else res.ok = true;
      return res;
    }
    const parts = [];
    let last = 0;
    for await (const chunk of rb) {
      const t = now();
      if (res.ttfbMs === undefined) res.ttfbMs = t - t0;
      else if (t - last > res.maxGapMs) res.maxGapMs = t - last;
      last = t;
      res.reads++;
      parts.push(chunk);
    }
    res.latencyMs = now() - t0;
    const text = Buffer.concat(parts).toString('utf8');
    if (statusCode !== 200) {
      fail(`status ${statusCode}: ${text.slice(0, 200)}`);
      return res;
    }
    const problem = checkStream(text, res);
    if (problem) fail(problem);
    else res.ok = true;
  } catch (err) {
    res.latencyMs = now() - t0;
    fail(`${err?.code ?? err?.name ?? 'error'}: ${err?.message ?? err}`);
  }
  return res;
}

/** Splits an SSE body into events and checks count, content and the protocol's proper end. */
function checkStream(text, res) {
  const events = text.split('\n\n').filter((e) => e.trim() !== '');
  res.events = events.length;
  let content = '';
  let lastData = '';
  let lastEvent = '';
  for (const e of events) {
    let data = '';
    let name = '';
    for (const line of e.split('\n')) {
      if (line.startsWith('data: ')) data += line.slice(6);
      else if (line.startsWith('event: ')) name = line.slice(7);
    }
    lastData = data;
    lastEvent = name;
    if (data === '[DONE]' || data === '') continue;
    let j;
    try {
      j = JSON.parse(data);
    } catch {
      return `event is not JSON: ${data.slice(0, 100)}`;
    }
    if (spec.kind === 'chat') content += j.choices?.[0]?.delta?.content ?? '';
    else if (j.type === 'content_block_delta' && j.delta?.type === 'text_delta') content += j.delta.text;
    if (j.type === 'error' || j.error) return `error event: ${data.slice(0, 200)}`;
  }
  if (content !== STREAM_TEXT) return `content differs: got ${content.length} chars, expected ${STREAM_TEXT.length}`;
  if (spec.kind === 'chat') {
    if (lastData !== '[DONE]') return 'chat stream did not end with [DONE]';
  } else if (lastEvent !== 'message_stop') return `messages stream ended with '${lastEvent}'`;
  // Passthrough must deliver exactly the upstream's events; a translated stream is checked by content and end.
  if (!spec.translated) {
    const expected = expectedEvents(spec.kind, spec.includeUsage === true);
    if (events.length !== expected) return `got ${events.length} events, expected ${expected}`;
  }
  return undefined;
}

/** Hard cap on requests per loop, so even a zero-latency target cannot spin forever. */
const MAX_REQUESTS = 10_000_000;

/** Closed loop: `concurrency` workers until the deadline (or `count` starts); returns when the last finishes. */
async function closedLoop(concurrency, durationMs, count, record) {
  const deadline = now() + durationMs;
  const limit = Math.min(count ?? MAX_REQUESTS, MAX_REQUESTS);
  let started = 0;
  const worker = async () => {
    while (started < limit && (count !== undefined || now() < deadline)) {
      started++;
      const r = await once();
      record?.(r);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function requestsMode() {
  const c = spec.concurrency ?? 1;
  if (spec.warmupMs > 0) await closedLoop(c, spec.warmupMs, undefined, undefined);
  if (spec.warmupCount > 0) await closedLoop(c, Infinity, spec.warmupCount, undefined);
  errors.count = 0;
  errors.samples.length = 0;
  const results = [];
  process.stderr.write('MEASURE_START\n');
  await handshake();
  const t0 = now();
  await closedLoop(c, spec.durationMs ?? Infinity, spec.count, (r) => results.push(r));
  const elapsed = now() - t0;
  process.stderr.write('MEASURE_END\n');
  await handshake();
  const ok = results.filter((r) => r.ok);
  const out = {
    mode: 'requests',
    completed: results.length,
    ok: ok.length,
    failed: results.length - ok.length,
    elapsedMs: elapsed,
    rps: results.length / (elapsed / 1000),
    latencyMs: summarize(ok.map((r) => r.latencyMs)),
    errors,
  };
  if (spec.stream) Object.assign(out, streamFigures(results));
  return out;
}

function streamFigures(results) {
  const ok = results.filter((r) => r.ok);
  return {
    ttfbMs: summarize(ok.map((r) => r.ttfbMs)),
    maxGapMs: summarize(ok.map((r) => r.maxGapMs)),
    events: summarize(results.map((r) => r.events)),
    // Body reads per stream: a buffering proxy would deliver a stream in a few reads instead of ~one per event.
    reads: summarize(ok.map((r) => r.reads)),
  };
}

/**
 * Serial streams to each of `spec.targets` in turn, one at a time: at least `warmupCount` each discarded,
 * then at least `count` each measured. Targets measured phase after phase drift apart with the machine; taken
 * in turn, they share its moments. What ran just before a stream matters: a proxy whose core sat idle through
 * a direct call starts colder than one after another proxy's stream. Rotating one order would put each target
 * after the same neighbour every time (in an A/A test, the same gateway build came out 0.03-0.13 ms slower in
 * one of the two places), so the visits follow balancedOrder.
 */
async function interleavedMode() {
  const targets = spec.targets.map((t) => ({
    name: t.name,
    pool: poolFor(t.origin, 1),
    path: t.path,
    headers: { 'content-type': 'application/json', ...t.headers },
  }));
  pools.push(...targets.map((t) => t.pool));
  const results = targets.map(() => []);
  const order = balancedOrder(targets.length);
  // Each pass through the order visits every target n - 1 times.
  const passes = (n) => Math.ceil(n / Math.max(1, targets.length - 1));
  const warm = passes(spec.warmupCount ?? 0);
  for (let pass = 0; pass < warm + passes(spec.count); pass++) {
    if (pass === warm) {
      errors.count = 0;
      errors.samples.length = 0;
      process.stderr.write('MEASURE_START\n');
    }
    for (const i of order) {
      const r = await once(targets[i]);
      if (pass >= warm) results[i].push(r);
    }
  }
  process.stderr.write('MEASURE_END\n');
  const completed = results.flat();
  const per = {};
  targets.forEach((t, i) => {
    const ok = results[i].filter((r) => r.ok);
    per[t.name] = { completed: results[i].length, failed: results[i].length - ok.length, latencyMs: summarize(ok.map((r) => r.latencyMs)), ...streamFigures(results[i]) };
  });
  return { mode: 'interleaved', completed: completed.length, failed: completed.filter((r) => !r.ok).length, targets: per, errors };
}

async function openLoopMode() {
  const rate = spec.rate;
  const intervalMs = 1000 / rate;
  const warmN = Math.round((rate * (spec.warmupMs ?? 0)) / 1000);
  const total = warmN + Math.round((rate * spec.durationMs) / 1000);
  const fromDue = [];
  const fromSend = [];
  let late = 0;
  let maxLateMs = 0;
  const inflight = new Set();
  const start = now() + 5;
  let i = 0;
  let measureMarked = false;
  await new Promise((resolveAll) => {
    const tick = () => {
      const t = now();
      while (i < total && start + i * intervalMs <= t) {
        const due = start + i * intervalMs;
        const measured = i >= warmN;
        if (measured && !measureMarked) {
          measureMarked = true;
          errors.count = 0;
          errors.samples.length = 0;
          process.stderr.write('MEASURE_START\n');
        }
        const sent = now();
        if (sent - due > 1) late++;
        if (measured && sent - due > maxLateMs) maxLateMs = sent - due;
        const p = once().then((r) => {
          inflight.delete(p);
          if (measured && r.ok) {
            fromDue.push(sent - due + r.latencyMs);
            fromSend.push(r.latencyMs);
          } else if (measured) {
            fromDue.push(NaN);
          }
        });
        inflight.add(p);
        i++;
      }
      if (i < total) {
        const next = start + i * intervalMs - now();
        setTimeout(tick, Math.max(0, Math.floor(next)));
      } else {
        Promise.all(inflight).then(resolveAll);
      }
    };
    setTimeout(tick, 5);
  });
  process.stderr.write('MEASURE_END\n');
  const measured = total - warmN;
  const ok = fromDue.filter((x) => !Number.isNaN(x));
  return {
    mode: 'openloop',
    rate,
    scheduled: measured,
    ok: ok.length,
    failed: measured - ok.length,
    lateSends: late,
    maxLateMs,
    latencyMs: summarize(ok),
    serviceMs: summarize(fromSend),
    errors,
  };
}

async function burstMode() {
  const all = [];
  const perBurstMax = [];
  const warmBurstMax = [];
  const warm = spec.warmupBursts ?? 1;
  for (let b = 0; b < warm + spec.bursts; b++) {
    const measured = b >= warm;
    if (measured && b === warm) {
      errors.count = 0;
      errors.samples.length = 0;
      process.stderr.write('MEASURE_START\n');
    }
    const rs = await Promise.all(Array.from({ length: spec.size }, () => once()));
    if (measured) for (const r of rs) if (r.ok) all.push(r.latencyMs);
    (measured ? perBurstMax : warmBurstMax).push(Math.max(...rs.map((r) => r.latencyMs)));
    await sleep(spec.intervalMs ?? 100);
  }
  process.stderr.write('MEASURE_END\n');
  return {
    mode: 'burst',
    size: spec.size,
    bursts: spec.bursts,
    ok: all.length,
    failed: spec.size * spec.bursts - all.length,
    latencyMs: summarize(all),
    burstMaxMs: summarize(perBurstMax),
    /** Each measured burst's slowest request, in order: a p99 set by one slow burst shows here. */
    burstMaxList: perBurstMax.map((ms) => Math.round(ms * 100) / 100),
    /** The same for the warm-up bursts (discarded): the first shows the path before V8 has optimised it. */
    warmBurstMaxList: warmBurstMax.map((ms) => Math.round(ms * 100) / 100),
    errors,
  };
}

const modes = { requests: requestsMode, openloop: openLoopMode, burst: burstMode, interleaved: interleavedMode };
const run = modes[spec.mode];
if (!run) throw new Error(`unknown mode ${spec.mode}`);
// A hard stop so a stuck target can never hang the benchmark.
const hardStop = setTimeout(() => {
  process.stderr.write('load.mjs: hard time limit reached\n');
  process.exit(3);
}, (spec.hardLimitMs ?? 120_000)).unref();
const result = await run();
clearTimeout(hardStop);
process.stdout.write(`${JSON.stringify(result)}\n`);
await Promise.all(pools.map((p) => p.close().catch(() => {})));
process.exit(0);
