#!/usr/bin/env node
/**
 * `node bench/sequence.mjs` (after `npm run build`): scenario 5b as `npm run bench` meets it, cheaply.
 *
 * In the full bench one gateway process serves every earlier phase (small requests, 100 KB bodies, serial
 * and open-loop requests, Chat streams, the 100 KB stream, translated streams) before the Bedrock pair, so the
 * pair runs on a heap and JIT state those phases left. `bench/ab.mjs --only bedrock` runs the pair in a fresh
 * process. This script runs the earlier phases' load (shortened) on one gateway, then the pair, and, with
 * `--fresh`, the pair alone in a fresh process, alternating the two per rep, so the difference between them is
 * what the earlier phases cost the pair.
 *
 *   node bench/sequence.mjs [--reps 2] [--fresh] [--only-fresh] [--before-s 3] [--bin other/bin/model-gateway.js]
 *                           [--cpu-prof] [--node-args "--trace-deopt"] [--serve-args "..."]
 * --cpu-prof writes each gateway's profile and summarises the Bedrock pair's windows (bench/profile.mjs's
 * summary), to bench/results/profiles/sequence-*.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flag, option, serveArgs as serveArgsOf } from './lib/args.mjs';
import { bedrockPair, bedrockPairBodies } from './lib/bedrock-streams.mjs';
import { callerHeaders, writeBodyFiles } from './lib/bodies.mjs';
import { closedLoopTool } from './lib/closed-loop.mjs';
import { loadPhase, throughputPhase } from './lib/phases.mjs';
import { placement, stopProcess } from './lib/proc.mjs';
import { spread } from './lib/stats.mjs';
import { GATEWAY_KEY, GATEWAY_VARIANTS, startGateway, startUpstream } from './lib/targets.mjs';
import { summarise } from './lib/cpu-profile.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const reps = Number(option('reps', '2'));
const beforeS = Number(option('before-s', '3'));
const bin = option('bin', join(REPO, 'bin', 'model-gateway.js'));
const cpuProf = flag('cpu-prof');
const nodeArgs = option('node-args', '').split(' ').filter(Boolean);
const serveArgs = [...GATEWAY_VARIANTS.gateway, ...serveArgsOf()];
const kinds = flag('only-fresh') ? ['fresh'] : flag('fresh') ? ['sequence', 'fresh'] : ['sequence'];
const outDir = join(REPO, 'bench', 'results', 'profiles');
const dir = mkdtempSync(join(tmpdir(), 'model-gateway-sequence-'));
const place = placement(flag('no-pin'));
const ctx = { place, tool: closedLoopTool(option('tool', undefined)), dir, children: new Set() };
const log = (s) => process.stderr.write(`${s}\n`);

const B = { ...writeBodyFiles(dir), bedrockPair: bedrockPairBodies(dir) };
const { bearer, anthropic, claudeCode } = callerHeaders(GATEWAY_KEY);

/** The phases `npm run bench` runs on the gateway before 5b, in its order, each `beforeS` long. */
async function earlierPhases(t) {
  const ms = beforeS * 1000;
  const chatStream = { mode: 'requests', path: '/v1/chat/completions', headers: bearer, stream: true, kind: 'chat' };
  const translated = { mode: 'requests', path: '/v1/messages', headers: anthropic, bodyFile: B.translated, stream: true, kind: 'messages', translated: true };
  await throughputPhase(ctx, t, { name: 'seq-small', path: '/v1/chat/completions', headers: bearer, bodyFile: B.chat, connections: 50, warmS: 1, measureS: beforeS });
  await throughputPhase(ctx, t, { name: 'seq-big', path: '/v1/messages?beta=true', headers: claudeCode, bodyFile: B.big, connections: 50, warmS: 1, measureS: beforeS });
  await loadPhase(ctx, t, { mode: 'requests', path: '/v1/chat/completions', headers: bearer, bodyFile: B.chat, concurrency: 1, warmupMs: 300, durationMs: ms });
  await loadPhase(ctx, t, { mode: 'openloop', path: '/v1/chat/completions', headers: bearer, bodyFile: B.chatSlow, rate: 500, connections: 256, warmupMs: 500, durationMs: ms });
  await loadPhase(ctx, t, { ...chatStream, bodyFile: B.chatStream, concurrency: 50, warmupMs: 300, durationMs: ms });
  await loadPhase(ctx, t, { ...chatStream, bodyFile: B.chatStream, concurrency: 1, warmupCount: 5, count: 20 });
  await loadPhase(ctx, t, { mode: 'requests', path: '/v1/messages?beta=true', headers: claudeCode, bodyFile: B.bigStream, stream: true, kind: 'messages', concurrency: 1, warmupCount: 5, count: 10 });
  await loadPhase(ctx, t, { ...translated, concurrency: 1, warmupCount: 5, count: 20 });
  await loadPhase(ctx, t, { ...translated, concurrency: 50, warmupMs: 300, durationMs: ms });
}

async function once(kind, rep) {
  const upstream = await startUpstream(place, place.loadCore);
  const profDir = join(dir, `prof-${kind}-${rep}`);
  const extraNodeArgs = [...nodeArgs, ...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [])];
  const gw = await startGateway(place, dir, upstream.origin, { tag: `seq-${kind}-${rep}`, bin, extraNodeArgs, extraArgs: serveArgs });
  const target = { name: 'gateway', ...gw };
  const startedUs = startUsOf(gw.pid);
  let pair;
  try {
    if (kind === 'sequence') await earlierPhases(target);
    const heap = await heapOf(target);
    pair = await bedrockPair(ctx, target, B.bedrockPair, { warmMs: 3000, secondWarmMs: 1000, measureMs: 5000 });
    pair.heapBefore = heap;
  } finally {
    await stopProcess(gw.child, 15_000);
    await stopProcess(upstream.child);
  }
  if (cpuProf) {
    const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8'));
    mkdirSync(outDir, { recursive: true });
    const texts = [];
    for (const side of ['anthropic', 'bedrock']) {
      for (const [i, w] of pair[side].windows.entries()) {
        const s = summarise(profile, w, 30);
        texts.push(`== ${kind} rep ${rep} ${side} window ${i + 1}: ${pair[side].windowsCpuUs[i].toFixed(0)} µs CPU per stream (under the profiler)\n${s.text}\n`);
      }
    }
    writeFileSync(join(outDir, `sequence-${kind}-${rep}.txt`), texts.join('\n'));
    writeFileSync(join(outDir, `sequence-${kind}-${rep}.cpuprofile`), JSON.stringify(profile));
  }
  if (nodeArgs.length > 0) {
    const output = readFileSync(join(dir, `seq-${kind}-${rep}.stdout.log`), 'utf8');
    writeFileSync(join(outDir, `sequence-${kind}-${rep}.stdout.log`), output);
    if (nodeArgs.includes('--trace-gc') && startedUs !== undefined) pair.gc = gcPerWindow(output, startedUs, pair);
  }
  return pair;
}

/**
 * When the process started, in CLOCK_MONOTONIC µs (the windows' clock), from /proc (clock ticks since boot,
 * a hundredth of a second): close enough to place `--trace-gc`'s lines (ms since the isolate started) in windows
 * of seconds.
 */
function startUsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[19]) * 10_000;
  } catch {
    return undefined;
  }
}

const GC_LINE = /^\[\d+:0x[0-9a-f]+\]\s+(\d+) ms: (Scavenge|Mark-Compact|Mark-sweep|Minor Mark-Sweep)\S*\s+([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB,(?: pooled: [\d.]+ MB,)? ([\d.]+) \/ ([\d.]+) ms/;

/** Per window of the pair: scavenges and full collections per 1,000 streams, their pause per stream, the heap after the last full one. */
function gcPerWindow(output, startedUs, pair) {
  const events = [];
  for (const line of output.split('\n')) {
    const m = GC_LINE.exec(line);
    if (!m) continue;
    const full = m[2] !== 'Scavenge' && m[2] !== 'Minor Mark-Sweep';
    const afterMb = Number(m[5]);
    // What a scavenge promoted: the heap after it less the heap after the collection before.
    const promotedMb = !full && events.length > 0 ? Math.max(0, afterMb - events.at(-1).afterMb) : 0;
    events.push({ atUs: startedUs + Number(m[1]) * 1000, full, afterMb, promotedMb, pauseMs: Number(m[7]) });
  }
  const out = {};
  for (const side of ['anthropic', 'bedrock']) {
    out[side] = pair[side].windows.map((w, i) => {
      const inside = events.filter((e) => e.atUs >= w.startUs && e.atUs <= w.endUs);
      const streams = pair[side].windowStreams[i];
      const full = inside.filter((e) => e.full);
      return {
        scavengesPer1k: (1000 * (inside.length - full.length)) / streams,
        fullPer1k: (1000 * full.length) / streams,
        pauseUsPerStream: (1000 * inside.reduce((a, e) => a + e.pauseMs, 0)) / streams,
        promotedKbPerStream: (1024 * inside.reduce((a, e) => a + e.promotedMb, 0)) / streams,
        heapAfterFullMb: full.at(-1)?.afterMb,
        heapAfterLastMb: inside.at(-1)?.afterMb,
        // The window in `--trace-gc`'s own clock (ms since the isolate started), to place other lines of the log.
        isolateMs: [Math.round((w.startUs - startedUs) / 1000), Math.round((w.endUs - startedUs) / 1000)],
      };
    });
  }
  return out;
}

/** The gateway's RSS as /proc tells it, before the pair (its heap is not reachable from outside). */
async function heapOf(target) {
  try {
    const status = readFileSync(`/proc/${target.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
  } catch {
    return undefined;
  }
}

async function main() {
  mkdirSync(outDir, { recursive: true });
  const ratios = Object.fromEntries(kinds.map((k) => [k, []]));
  const loads = [];
  for (let rep = 1; rep <= reps; rep++) {
    for (const kind of rep % 2 === 1 ? kinds : [...kinds].reverse()) {
      loads.push(loadavg()[0]);
      const p = await once(kind, rep);
      ratios[kind].push(p.ratio);
      log(
        `rep ${rep} ${kind.padEnd(8)} anthropic ${p.anthropic.cpuUs.toFixed(0)} µs (${p.anthropic.windowsCpuUs.map((x) => x.toFixed(0)).join(', ')}), ` +
          `bedrock ${p.bedrock.cpuUs.toFixed(0)} µs (${p.bedrock.windowsCpuUs.map((x) => x.toFixed(0)).join(', ')}): ${p.ratio.toFixed(2)}x; ` +
          `RSS before the pair ${p.heapBefore?.toFixed(0)} MB; failed ${p.anthropic.failed + p.bedrock.failed}; load ${loadavg()[0].toFixed(1)}`,
      );
      if (p.gc) {
        for (const side of ['anthropic', 'bedrock']) {
          const w = p.gc[side].map((g) => `scavenges ${g.scavengesPer1k.toFixed(0)}/1k streams, full ${g.fullPer1k.toFixed(1)}/1k, pauses ${g.pauseUsPerStream.toFixed(0)} µs/stream, promoted ${g.promotedKbPerStream.toFixed(1)} KB/stream, heap ${g.heapAfterLastMb ?? '–'} MB, at ${g.isolateMs.join('–')} ms`);
          log(`    gc ${side.padEnd(9)} ${w.join(' | ')}`);
        }
      }
    }
  }
  for (const kind of kinds) {
    const s = spread(ratios[kind]);
    log(`${kind}: bedrock / anthropic ${s.median.toFixed(2)}x [${s.min.toFixed(2)} – ${s.max.toFixed(2)}] over ${reps} reps`);
  }
  log(`load average at each start: ${loads.map((x) => x.toFixed(1)).join(' ')}`);
}

try {
  await main();
} finally {
  for (const c of ctx.children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
