#!/usr/bin/env node
/**
 * `node bench/alloc.mjs` (after `npm run build`): bytes allocated per small request (or per streamed answer, with
 * `--scenario`), by function.
 *
 * Starts the built gateway (or, with `--target reference`, the reference forwarder) with V8's sampling heap
 * profiler preloaded (bench/lib/heap-sampler.mjs), sends `--warmup` small Chat requests, then samples while it
 * sends `--requests` more, and prints the bytes allocated per request: in total, by area (source file, package,
 * node internals) and by function (top 20, self and, for the gateway's own functions, inclusive). Objects the
 * garbage collector has already taken are counted, so this is what a request allocates, not what it keeps.
 * It is a count, not a time: other load on the machine does not move it (within the sampling's noise, about 1 %).
 *
 * `--scenario stream` drives scenario 3's 50-chunk Chat streams (st50), `messages` and `bedrock` scenario 5b's pair
 * (the same Messages stream passed through from the anthropic provider, and decoded from the bedrock one's
 * event-stream); each figure is then per streamed answer, read to its end. The reference serves small and stream.
 *
 *   node bench/alloc.mjs [--scenario small|stream|messages|bedrock] [--target gateway|reference] [--requests 20000] [--warmup 30000] [--connections 50]
 *                        [--interval 256] [--top 20] [--promoted] [--serve-args "--no-inspector"] [--ledger on|off] [--json FILE] [--raw FILE] [--bin other/bin/model-gateway.js]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { flag, ledgerOption, option, serveArgs as serveArgsOf } from './lib/args.mjs';
import { callerHeaders, smallChat, smallMessages, writeBodyFile } from './lib/bodies.mjs';
import { area, original } from './lib/cpu-profile.mjs';
import { loadPhase } from './lib/phases.mjs';
import { placement, stopProcess } from './lib/proc.mjs';
import { GATEWAY_KEY, GATEWAY_VARIANTS, startGateway, startReference, startUpstream } from './lib/targets.mjs';

const which = option('target', 'gateway');
const streamed = option('scenario', 'small') !== 'small';
/** A stream lasts its 50 chunks' gaps (about 0.1 s): fewer of them make as steady a figure. */
const requests = Number(option('requests', streamed ? '4000' : '20000'));
const warmup = Number(option('warmup', streamed ? '4000' : '30000'));
const connections = Number(option('connections', '50'));
const top = Number(option('top', '20'));
const jsonOut = option('json', undefined);
/**
 * `--promoted`: only what outlived the young generation (promoted to the old one, where only a major collection
 * takes it back) or is still alive at the end: what a request keeps too long.
 */
const promoted = flag('promoted');
/** `--raw FILE`: the sampling heap profile as V8 wrote it (opens in Chrome DevTools' Memory tab as a .heapprofile). */
const rawOut = option('raw', undefined);
/** `--bin PATH`: another build's bin/model-gateway.js (a base to compare with). */
const bin = option('bin', undefined);
const dir = mkdtempSync(join(tmpdir(), 'model-gateway-alloc-'));
const place = placement();
const ctx = { place, dir, children: new Set() };
const profileFile = join(dir, 'heap.json');
/** The gateway as scenario 1 runs it (`--no-log-bodies`) unless `--serve-args` says otherwise. */
const gatewayArgs = option('serve-args', undefined) === undefined ? GATEWAY_VARIANTS.gateway : serveArgsOf();
const log = (s) => process.stderr.write(`${s}\n`);

/** Each scenario's endpoint, body and the headers its SDK sends, as bench/load.mjs takes them (the bench's own: bench/run.mjs, bench/lib/bedrock-streams.mjs). */
const callers = callerHeaders(GATEWAY_KEY);
const SCENARIOS = {
  small: { path: '/v1/chat/completions', headers: callers.bearer, body: smallChat('bench-chat', false) },
  stream: { path: '/v1/chat/completions', headers: callers.bearer, body: smallChat('bench-chat', true), stream: true, kind: 'chat' },
  messages: { path: '/v1/messages', headers: callers.anthropic, body: smallMessages('claude-bench', true), stream: true, kind: 'messages' },
  bedrock: { path: '/v1/messages', headers: callers.anthropic, body: smallMessages('bench-bedrock', true), stream: true, kind: 'messages' },
};
const scenarioName = option('scenario', 'small');
const scenario = SCENARIOS[scenarioName];
if (!scenario) throw new Error(`--scenario: one of ${Object.keys(SCENARIOS).join(', ')}`);
const unit = scenarioName === 'small' ? 'small request' : `streamed answer (${scenarioName})`;

async function waitForFile(file, child) {
  for (let i = 0; i < 3600; i++) {
    if (existsSync(file)) return;
    if (child.exitCode !== null) throw new Error(`the process under test exited: ${child.stderrText()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${file} within 180 s`);
}

/** Self bytes by function and by area, and inclusive bytes of the gateway's own functions (each counted once per path). */
function tally(head) {
  const self = new Map();
  const areas = new Map();
  const inclusive = new Map();
  const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v);
  const name = (cf) => {
    const fn = cf.functionName || '(anonymous)';
    if (!cf.url) return fn;
    const src = cf.url.includes('/dist/') ? original(cf.url, cf.lineNumber, cf.columnNumber) : undefined;
    return `${fn} ${src ?? `${area(cf.url, fn)}:${cf.lineNumber + 1}`}`;
  };
  let total = 0;
  // Iterative, with each node's own inclusive total computed after its children.
  const walk = (node, onPath) => {
    const key = name(node.callFrame);
    const own = key !== '(root)' && !onPath.has(key) && node.callFrame.url.includes('/dist/');
    if (own) onPath.add(key);
    let sum = node.selfSize;
    for (const child of node.children) sum += walk(child, onPath);
    if (own) {
      onPath.delete(key);
      add(inclusive, key, sum);
    }
    total += node.selfSize;
    if (node.selfSize > 0) {
      add(self, key, node.selfSize);
      add(areas, area(node.callFrame.url, node.callFrame.functionName), node.selfSize);
    }
    return sum;
  };
  walk(head, new Set());
  return { total, self, areas, inclusive };
}

const rows = (m, n, perReq) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `  ${(v / perReq).toFixed(0).padStart(7)} B  ${k}`)
    .join('\n');

async function main() {
  const upstream = await startUpstream(place, place.loadCore);
  process.env.BENCH_HEAP_PROFILE_OUT = profileFile;
  process.env.BENCH_HEAP_SAMPLING_INTERVAL = option('interval', '256');
  process.env.BENCH_HEAP_INCLUDE_MINOR = promoted ? '0' : '1';
  const extraNodeArgs = [`--import=${pathToFileURL(join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, 'lib', 'heap-sampler.mjs')).href}`];
  const target =
    which === 'reference'
      ? await startReference(place, upstream.origin, { extraNodeArgs })
      : await startGateway(place, dir, upstream.origin, { tag: 'alloc', extraNodeArgs, extraArgs: gatewayArgs, ledger: ledgerOption(), ...(bin ? { bin } : {}) });
  try {
    log(`${which}: ${warmup} requests of warm-up, then ${requests} sampled, ${connections} at a time`);
    const { body, ...load } = scenario;
    const spec = { mode: 'requests', ...load, bodyFile: writeBodyFile(dir, 'body.json', body), concurrency: connections, warmupCount: warmup, count: requests, timeoutMs: 120_000, hardLimitMs: 1_200_000 };
    // The sampler starts after the warm-up and stops with the last measured request (bench/lib/heap-sampler.mjs).
    const signalled = (file) => async () => {
      target.child.kill('SIGUSR2');
      await waitForFile(file, target.child);
    };
    const result = await loadPhase(ctx, { name: which, ...target }, spec, { start: signalled(`${profileFile}.started`), end: signalled(profileFile) });
    if (result.failed > 0) throw new Error(`${result.failed} of ${requests} requests failed: ${JSON.stringify(result.errors).slice(0, 500)}`);
    const raw = readFileSync(profileFile, 'utf8');
    if (rawOut) writeFileSync(rawOut, raw);
    const profile = JSON.parse(raw);
    const t = tally(profile.head);
    const text = [
      `== ${which}: ${(t.total / requests).toFixed(0)} B ${promoted ? 'promoted or still alive' : 'allocated'} per ${unit} (${requests} requests, sampling every ${process.env.BENCH_HEAP_SAMPLING_INTERVAL} B)`,
      'by area:',
      rows(t.areas, top, requests),
      `by function, self (top ${top}):`,
      rows(t.self, top, requests),
      ...(which === 'reference' ? [] : [`the gateway's functions, inclusive (top ${top}):`, rows(t.inclusive, top, requests)]),
    ].join('\n');
    process.stdout.write(`${text}\n`);
    if (jsonOut) {
      const obj = (m) => Object.fromEntries([...m].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Math.round(v / requests)]));
      writeFileSync(jsonOut, `${JSON.stringify({ target: which, scenario: scenarioName, requests, bytesPerRequest: t.total / requests, areas: obj(t.areas), self: obj(t.self), inclusive: obj(t.inclusive) }, null, 2)}\n`);
    }
  } finally {
    await stopProcess(target.child, 10_000);
    await stopProcess(upstream.child);
  }
}

try {
  await main();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
