#!/usr/bin/env node
/**
 * `node bench/profile.mjs` (after `npm run build`): where the gateway's CPU goes, per scenario.
 *
 * For each scenario a fresh gateway runs under `node --cpu-prof` (pinned like
 * in the benchmark), takes that scenario's load, and stops gracefully so the
 * profile is written. The profile is then summarised: busy time by area
 * (gateway source file, undici, node:http, streams, GC…), the top functions by
 * self time, and the gateway's own functions by inclusive time. Text and the
 * raw .cpuprofile files go to bench/results/profiles/ (open the latter in
 * Chrome DevTools or speedscope for flame graphs).
 *
 *   node bench/profile.mjs [--seconds 8] [--only small,stream] [--target reference] [--serve-args "--no-log-bodies"] [--ledger on|off]
 * Scenarios: small, big, stream, translated, count_tokens, and messages and bedrock (the same Messages stream
 * from the anthropic provider, passed through, and from the bedrock one, decoded from event-stream).
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeCodeBody, claudeCodeHeaders, countTokensBody, smallChat, smallMessages, writeBodyFile } from './lib/bodies.mjs';
import { closedLoopTool } from './lib/closed-loop.mjs';
import { loadPhase, throughputPhase } from './lib/phases.mjs';
import { summarise } from './lib/cpu-profile.mjs';
import { placement, stopProcess } from './lib/proc.mjs';
import { GATEWAY_KEY, startGateway, startReference, startUpstream } from './lib/targets.mjs';
import { flag, ledgerOption, option, serveArgs as serveArgsOf } from './lib/args.mjs';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(option('seconds', '8'));
const outDir = join(REPO, 'bench', 'results', 'profiles');
const dir = mkdtempSync(join(tmpdir(), 'model-gateway-profile-'));
const place = placement(flag('no-pin'));
const ctx = { place, tool: closedLoopTool(option('tool', undefined)), dir, children: new Set() };
const log = (s) => process.stderr.write(`${s}\n`);
/** `--target reference` profiles the reference forwarder instead (small, big and stream only), for comparison. */
const which = option('target', 'gateway');
const prefix = which === 'reference' ? 'reference-' : '';
const serveArgs = serveArgsOf();
const ledger = ledgerOption();

const write = (name, obj) => writeBodyFile(dir, name, obj);
const bearer = { authorization: `Bearer ${GATEWAY_KEY}`, 'user-agent': 'OpenAI/JS 6.49.0' };
const anthropic = { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01' };

const SCENARIOS = {
  small: (t) =>
    throughputPhase(ctx, t, { name: 'p-small', path: '/v1/chat/completions', headers: bearer, bodyFile: write('chat.json', smallChat('bench-chat', false)), connections: 50, warmS: 1, measureS: seconds }),
  big: (t) =>
    throughputPhase(ctx, t, { name: 'p-big', path: '/v1/messages?beta=true', headers: claudeCodeHeaders(GATEWAY_KEY), bodyFile: write('big.json', claudeCodeBody('claude-bench', false)), connections: 50, warmS: 1, measureS: seconds }),
  stream: (t) =>
    loadPhase(ctx, t, { mode: 'requests', path: '/v1/chat/completions', headers: bearer, bodyFile: write('chat-stream.json', smallChat('bench-chat', true)), stream: true, kind: 'chat', concurrency: 50, warmupMs: 1000, durationMs: seconds * 1000 }),
  translated: (t) =>
    loadPhase(ctx, t, { mode: 'requests', path: '/v1/messages', headers: anthropic, bodyFile: write('translated.json', smallMessages('bench-local', true)), stream: true, kind: 'messages', translated: true, concurrency: 50, warmupMs: 1000, durationMs: seconds * 1000 }),
  messages: (t) =>
    loadPhase(ctx, t, { mode: 'requests', path: '/v1/messages', headers: anthropic, bodyFile: write('messages.json', smallMessages('claude-bench', true)), stream: true, kind: 'messages', concurrency: 50, warmupMs: 1000, durationMs: seconds * 1000 }),
  bedrock: (t) =>
    loadPhase(ctx, t, { mode: 'requests', path: '/v1/messages', headers: anthropic, bodyFile: write('bedrock.json', smallMessages('bench-bedrock', true)), stream: true, kind: 'messages', concurrency: 50, warmupMs: 1000, durationMs: seconds * 1000 }),
  count_tokens: (t) =>
    loadPhase(ctx, t, { mode: 'burst', path: '/v1/messages/count_tokens', headers: claudeCodeHeaders(GATEWAY_KEY), bodyFile: write('ct.json', countTokensBody('bench-local')), size: 30, warmupBursts: 2, bursts: seconds * 5, intervalMs: 100, expectJsonField: 'input_tokens' }),
};

async function main() {
  mkdirSync(outDir, { recursive: true });
  const only = option('only', Object.keys(SCENARIOS).join(',')).split(',');
  const summary = {};
  for (const name of only) {
    const scenario = SCENARIOS[name];
    if (!scenario) throw new Error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);
    const upstream = await startUpstream(place, place.loadCore);
    const profDir = join(dir, `prof-${name}`);
    const extraNodeArgs = ['--cpu-prof', `--cpu-prof-dir=${profDir}`];
    const gw =
      which === 'reference'
        ? await startReference(place, upstream.origin, { extraNodeArgs })
        : await startGateway(place, dir, upstream.origin, { tag: `prof-${name}`, extraNodeArgs, extraArgs: serveArgs, ledger });
    const target = { name: which, ...gw };
    let result;
    try {
      result = await scenario(target);
    } finally {
      await stopProcess(gw.child, 15_000);
      await stopProcess(upstream.child);
    }
    const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`no profile written for ${name}`);
    const raw = readFileSync(join(profDir, file), 'utf8');
    writeFileSync(join(outDir, `${prefix}${name}.cpuprofile`), raw);
    const s = summarise(JSON.parse(raw), result.window);
    const perUnit = result.cpuUsPerReq ?? (result.sutCpuS * 1e6) / (result.completed ?? result.ok);
    const head = `== ${which} ${name}: ${Number.isFinite(perUnit) ? `${perUnit.toFixed(0)} µs CPU per request/stream` : ''} (under the profiler, which adds overhead)`;
    const text = `${head}\n${s.text}\n`;
    writeFileSync(join(outDir, `${prefix}${name}.txt`), text);
    process.stdout.write(`${text}\n`);
    summary[name] = { cpuUsPerUnit: perUnit, ...s, text: undefined };
  }
  writeFileSync(join(outDir, `${prefix}summary.json`), `${JSON.stringify(summary, null, 2)}\n`);
  log(`profiles and summaries in ${outDir}`);
}

try {
  await main();
} finally {
  for (const c of ctx.children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
