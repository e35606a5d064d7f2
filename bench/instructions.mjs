#!/usr/bin/env node
/**
 * `node bench/instructions.mjs` (after `npm run build`; needs valgrind): CPU
 * instructions per request, a figure that other work on the machine does not
 * move, to judge a change when timings are noise (2 shared cores).
 *
 * For each scenario the target runs under `valgrind --tool=callgrind`, takes
 * a warm-up, then N requests, and instructions per request = I / N, where I
 * is counted from when the N requests start to when the last is answered
 * (callgrind's counters are zeroed and dumped there, the load waiting meanwhile),
 * all threads counted. The target runs with `--single-threaded` (no V8
 * background threads), which makes the count repeat closely; its work is the
 * same, done on the main thread.
 *
 *   node bench/instructions.mjs [--only small,big,stream,translated,messages,bedrock,count_tokens]
 *        [--requests 1000] [--target gateway|reference] [--bin other/bin/model-gateway.js]
 *        [--serve-args "--no-inspector"] [--concurrency 4] [--warmup 3000] [--keep]
 *        [--node-args "--no-flush-bytecode"] [--ledger on|off] [--start-timeout 600] [--bodies-per-second 0]
 * (`--ledger`: the config's `server.ledger` set to true or false, to count what the usage ledger costs.)
 * (`--start-timeout`: seconds a target under valgrind may take to start; a machine busy with other work needs minutes.)
 * (`--bodies-per-second N`: the config's `inspector.bodiesPerSecond`, 0 unless given. The inspector's history keeps
 * that many requests a second whole, by the clock: under valgrind, at a few dozen requests a second, the default 20
 * would keep nearly every request whole, where at the gateway's real pace it keeps a fraction of a per cent of them.
 * So the count is of rows only; `--bodies-per-second 1000` counts every request kept whole, and `default` leaves the
 * config without the setting, for a build from before it.)
 * (valgrind slows the target ~50x: the defaults take a few minutes per scenario.)
 */
import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claudeCodeBody, claudeCodeHeaders, countTokensBody, smallChat, smallMessages } from './lib/bodies.mjs';
import { loadPhase } from './lib/phases.mjs';
import { placement, stopProcess } from './lib/proc.mjs';
import { GATEWAY_KEY, startGateway, startReference, startUpstream } from './lib/targets.mjs';
import { flag, ledgerOption, option, serveArgs as serveArgsOf } from './lib/args.mjs';

if (spawnSync('sh', ['-c', 'command -v valgrind'], { stdio: 'ignore' }).status !== 0) {
  process.stderr.write('valgrind is not installed (apt-get install -y valgrind)\n');
  process.exit(2);
}
const count = Number(option('requests', '1000'));
const concurrency = Number(option('concurrency', '4'));
/**
 * Requests before counting. V8 keeps compiling (TurboFan, on the main thread under --single-threaded)
 * for good under valgrind: about 400k instructions per small request, for the gateway and the reference
 * forwarder alike, after 300, 3,000 or 10,000 warm-up requests, and with --no-flush-bytecode
 * --no-memory-reducer (`--node-args`). Outside valgrind, at 50 connections, --trace-opt shows it settling
 * within 5,000 to 10,000 requests. So each figure below also gives the compiler's share (callgrind's
 * per-function counts): compare builds by the figure without it.
 */
const warmup = Number(option('warmup', '3000'));
const which = option('target', 'gateway');
const bin = option('bin', undefined);
const serveArgs = serveArgsOf();
const ledger = ledgerOption();
const bodiesPerSecond = option('bodies-per-second', '0');
const inspector = bodiesPerSecond === 'default' ? undefined : { bodiesPerSecond: Number(bodiesPerSecond) };
const dir = mkdtempSync(join(tmpdir(), 'model-gateway-instr-'));
const place = placement(flag('no-pin'));
const ctx = { place, dir, children: new Set() };
const log = (s) => process.stderr.write(`${s}\n`);

const write = (name, obj) => {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(obj));
  return file;
};
const bearer = { authorization: `Bearer ${GATEWAY_KEY}`, 'user-agent': 'OpenAI/JS 6.49.0' };
const anthropic = { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' };
/** Each scenario: the load spec, without counts (set per run). Concurrency is low: valgrind runs one thread at a time. */
const SCENARIOS = {
  small: () => ({ path: '/v1/chat/completions', headers: bearer, bodyFile: write('chat.json', smallChat('bench-chat', false)) }),
  big: () => ({ path: '/v1/messages?beta=true', headers: claudeCodeHeaders(GATEWAY_KEY), bodyFile: write('big.json', claudeCodeBody('claude-bench', false)) }),
  stream: () => ({ path: '/v1/chat/completions', headers: bearer, bodyFile: write('cs.json', smallChat('bench-chat', true)), stream: true, kind: 'chat' }),
  translated: () => ({
    path: '/v1/messages',
    headers: anthropic,
    bodyFile: write('tr.json', smallMessages('bench-local', true)),
    stream: true,
    kind: 'messages',
    translated: true,
  }),
  // The same Messages stream passed through from the anthropic provider and decoded from the bedrock one's event-stream.
  messages: () => ({ path: '/v1/messages', headers: anthropic, bodyFile: write('ms.json', smallMessages('claude-bench', true)), stream: true, kind: 'messages' }),
  bedrock: () => ({ path: '/v1/messages', headers: anthropic, bodyFile: write('bs.json', smallMessages('bench-bedrock', true)), stream: true, kind: 'messages' }),
  count_tokens: () => ({
    path: '/v1/messages/count_tokens',
    headers: claudeCodeHeaders(GATEWAY_KEY),
    bodyFile: write('ct.json', countTokensBody('bench-local')),
    expectJsonField: 'input_tokens',
  }),
};

/**
 * Instructions the target executes for `count` requests after the warm-up, in one process: callgrind's
 * counters are zeroed when the measured requests start and dumped when they have all been answered (the
 * load waits at both points, so no request is in flight), so start-up, warm-up and shutdown are not in it.
 * `compile` is the part of `total` spent in V8's optimising compiler.
 */
async function instructions(upstream, spec, count, tag) {
  const outFile = join(dir, `${tag}.callgrind`);
  const wrapper = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${outFile}`, '--dump-instr=no', '--compress-strings=no'];
  // V8's background threads (concurrent compilation and GC) make the count vary from run to run by more than a
  // change worth measuring; on the main thread the same work is counted, in the same order each time.
  const options = { wrapper, extraNodeArgs: ['--single-threaded', ...option('node-args', '').split(' ').filter(Boolean)], startTimeoutMs: Number(option('start-timeout', '600')) * 1000 };
  const t =
    which === 'reference'
      ? await startReference(place, upstream.origin, options)
      : await startGateway(place, dir, upstream.origin, { ...options, tag, extraArgs: serveArgs, ledger, inspector, ...(bin ? { bin } : {}) });
  const target = { name: which, ...t };
  const control = (command) => callgrindControl(command, t.pid, target.origin);
  try {
    const result = await loadPhase(
      ctx,
      target,
      { mode: 'requests', ...spec, concurrency, warmupCount: warmup, count, timeoutMs: 120_000, hardLimitMs: 1_200_000 },
      { start: () => control('-z'), end: () => control('-d') },
    );
    // A count over failed requests measures the failure path, not the scenario.
    if (result.failed > 0) throw new Error(`${result.failed} of ${count} requests failed: ${JSON.stringify(result.errors).slice(0, 500)}`);
  } finally {
    await stopProcess(t.child, 120_000);
  }
  const dump = readdirSync(dir).find((f) => f.startsWith(`${tag}.callgrind.`));
  if (!dump) throw new Error(`callgrind wrote no dump for ${tag}: ${t.child.stderrText().slice(-1500)}`);
  const text = readFileSync(join(dir, dump), 'utf8');
  const m = /^(?:summary|totals): (\d+)/m.exec(text);
  if (!m) throw new Error(`no total in ${dump}`);
  return { total: Number(m[1]), compile: compilerInstructions(join(dir, dump)) };
}

/**
 * Runs `callgrind_control` against the target. Valgrind takes the command only while the program runs,
 * not while it waits in a system call, so an idle target is nudged with a request until it has.
 */
async function callgrindControl(command, pid, origin) {
  const child = spawn('callgrind_control', [command, String(pid)], { stdio: 'ignore' });
  const done = new Promise((resolve) => child.once('exit', resolve));
  let finished = false;
  void done.then(() => (finished = true));
  while (!finished) {
    await Promise.race([done, sleep(300)]);
    if (!finished) await request(`${origin}/health`).then((r) => r.body.dump(), () => undefined);
  }
}

/** Instructions spent in V8's optimising compiler, from callgrind_annotate; undefined when that is not available. */
function compilerInstructions(file) {
  const out = spawnSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (out.status !== 0) return undefined;
  let sum = 0;
  for (const line of out.stdout.split('\n')) {
    const m = /^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)$/.exec(line);
    if (m && /v8::internal::compiler::|v8::internal::maglev::/.test(m[2])) sum += Number(m[1].replaceAll(',', ''));
  }
  return sum;
}

async function main() {
  const only = option('only', 'small,big,stream').split(',');
  const upstream = await startUpstream(place, place.loadCore);
  const results = {};
  /** The same, less V8's optimising compiler: the figure to compare builds by. */
  const withoutCompiler = {};
  try {
    for (const name of only) {
      const make = SCENARIOS[name];
      if (!make) throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);
      const spec = make();
      const r = await instructions(upstream, spec, count, name);
      const perRequest = (n) => Math.round(n / count);
      results[name] = perRequest(r.total);
      if (r.compile !== undefined) withoutCompiler[name] = perRequest(r.total - r.compile);
      const compiling =
        r.compile === undefined
          ? ''
          : `; of which V8's optimising compiler: ${perRequest(r.compile).toLocaleString('en')}, without it: ${withoutCompiler[name].toLocaleString('en')}`;
      log(`${which} ${name}: ${results[name].toLocaleString('en')} instructions per request (${r.total.toLocaleString('en')} for ${count})${compiling}`);
    }
  } finally {
    await stopProcess(upstream.child);
  }
  process.stdout.write(`${JSON.stringify({ target: which, requests: count, warmup, instructionsPerRequest: results, withoutCompiler })}\n`);
}

try {
  await main();
} finally {
  for (const c of ctx.children) c.kill('SIGKILL');
  // --keep: leave the callgrind files (callgrind_annotate shows where the instructions go, by native function).
  if (flag('keep')) log(`callgrind files kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
