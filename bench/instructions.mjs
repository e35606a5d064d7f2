#!/usr/bin/env node
/**
 * `node bench/instructions.mjs` (after `npm run build`; needs valgrind): CPU
 * instructions per request, a figure that other work on the machine does not
 * move, to judge a change when timings are noise (2 shared cores).
 *
 * For each scenario the target runs under `valgrind --tool=callgrind` twice, once
 * taking N1 requests and once N2 (after the same warm-up), and stops gracefully;
 * instructions per request = (I(N2) − I(N1)) / (N2 − N1), all threads counted
 * (the log file's writes too). Start-up, warm-up and shutdown cancel out. The
 * target runs with `--single-threaded` (no V8 background threads), which makes
 * the count repeat to within about 1 %; its work is the same, done on the main thread.
 *
 *   node bench/instructions.mjs [--only small,big,stream,translated,count_tokens]
 *        [--requests 300,900] [--target gateway|reference] [--bin other/bin/model-gateway.js]
 *        [--serve-args "--no-inspector"] [--concurrency 4]
 * (valgrind slows the target ~50x: the defaults take a few minutes per scenario.)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claudeCodeBody, claudeCodeHeaders, countTokensBody, smallChat, smallMessages } from './lib/bodies.mjs';
import { loadPhase } from './lib/phases.mjs';
import { placement, stopProcess } from './lib/proc.mjs';
import { GATEWAY_KEY, startGateway, startReference, startUpstream } from './lib/targets.mjs';
import { flag, option, serveArgs as serveArgsOf } from './lib/args.mjs';

if (spawnSync('sh', ['-c', 'command -v valgrind'], { stdio: 'ignore' }).status !== 0) {
  process.stderr.write('valgrind is not installed (apt-get install -y valgrind)\n');
  process.exit(2);
}
const [n1, n2] = option('requests', '300,900').split(',').map(Number);
const concurrency = Number(option('concurrency', '4'));
const which = option('target', 'gateway');
const bin = option('bin', undefined);
const serveArgs = serveArgsOf();
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
  count_tokens: () => ({
    path: '/v1/messages/count_tokens',
    headers: claudeCodeHeaders(GATEWAY_KEY),
    bodyFile: write('ct.json', countTokensBody('bench-local')),
    expectJsonField: 'input_tokens',
  }),
};

/** Instructions the target executes from start to graceful stop, taking `count` requests after the warm-up. */
async function instructions(upstream, spec, count, tag) {
  const outFile = join(dir, `${tag}.callgrind`);
  const wrapper = ['valgrind', '--tool=callgrind', `--callgrind-out-file=${outFile}`, '--dump-instr=no', '--compress-strings=no'];
  // V8's background threads (concurrent compilation and GC) make the count vary from run to run by more than a
  // change worth measuring; on the main thread the same work is counted, in the same order each time.
  const options = { wrapper, extraNodeArgs: ['--single-threaded'], startTimeoutMs: 180_000 };
  const t =
    which === 'reference'
      ? await startReference(place, upstream.origin, options)
      : await startGateway(place, dir, upstream.origin, { ...options, tag, extraArgs: serveArgs, ...(bin ? { bin } : {}) });
  const target = { name: which, ...t };
  try {
    const result = await loadPhase(ctx, target, { mode: 'requests', ...spec, concurrency, warmupCount: 300, count, timeoutMs: 120_000, hardLimitMs: 1_200_000 });
    // A count over failed requests measures the failure path, not the scenario.
    if (result.failed > 0) throw new Error(`${result.failed} of ${count} requests failed: ${JSON.stringify(result.errors).slice(0, 500)}`);
  } finally {
    await stopProcess(t.child, 120_000);
  }
  const m = /Collected : (\d+)/.exec(t.child.stderrText());
  if (!m) throw new Error(`no instruction count from valgrind: ${t.child.stderrText().slice(-1500)}`);
  return Number(m[1]);
}

async function main() {
  const only = option('only', 'small,big,stream').split(',');
  const upstream = await startUpstream(place, place.loadCore);
  const results = {};
  try {
    for (const name of only) {
      const make = SCENARIOS[name];
      if (!make) throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);
      const spec = make();
      const a = await instructions(upstream, spec, n1, `${name}-${n1}`);
      const b = await instructions(upstream, spec, n2, `${name}-${n2}`);
      results[name] = Math.round((b - a) / (n2 - n1));
      log(`${which} ${name}: ${results[name].toLocaleString('en')} instructions per request (${a.toLocaleString('en')} at ${n1}, ${b.toLocaleString('en')} at ${n2})`);
    }
  } finally {
    await stopProcess(upstream.child);
  }
  process.stdout.write(`${JSON.stringify({ target: which, requests: [n1, n2], instructionsPerRequest: results })}\n`);
}

try {
  await main();
} finally {
  for (const c of ctx.children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
