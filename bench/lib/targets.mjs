/**
 * The three targets of a round, each in its own process: the fake upstream
 * (which "direct" calls), the reference forwarder, and the gateway started as
 * users start it (`node bin/model-gateway.js serve --config FILE --log-file FILE`,
 * plus the flags of GATEWAY_VARIANTS). Beside them, when socat is installed, a byte relay: the hop alone.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, connect } from 'node:net';
import { hasCmd, pinnedArgv, startProcess, stopProcess, waitForUrlInFile, waitForUrlLine } from './proc.mjs';

const BENCH = fileURLToPath(new URL('..', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));

export const GATEWAY_KEY = 'gw-bench-key-0123456789abcdef0123';

/**
 * The `serve` flags run.mjs adds (as `extraArgs`) to startGateway's `--config F --port 0 --log-file F --no-color`:
 * the gateway as a user leaves it running (a log file of facts per request, the inspector on, as `serve` has it, and
 * nobody watching it), the same without the inspector (scenario 1's A/B), and a full recording (`--log-file` with
 * bodies). startGateway's own default stays `--log-file` with bodies, for profile.mjs and instructions.mjs.
 */
export const GATEWAY_VARIANTS = {
  gateway: ['--no-log-bodies'],
  noInspector: ['--no-log-bodies', '--no-inspector'],
  recording: [],
};

/**
 * Models the scenarios use, and the fake upstream's path prefix each maps to
 * (/u/<delayMs>/<gapMs>): what "direct" calls, and what the providers' baseUrl holds.
 */
export const MODELS = {
  'bench-chat': { prefix: '/u/0/2', provider: 'openai-fast', upstreamModel: 'gpt-bench-upstream' },
  'bench-chat-slow': { prefix: '/u/50/2', provider: 'openai-slow', upstreamModel: 'gpt-bench-upstream' },
  'bench-chat-mem': { prefix: '/u/0/50', provider: 'openai-mem', upstreamModel: 'gpt-bench-upstream' },
  'claude-bench': { prefix: '/u/0/2', provider: 'anthropic', upstreamModel: 'claude-bench-upstream' },
  // Claude on Bedrock: the model id goes in the path (/model/{id}/invoke-with-response-stream), as a cross-region profile's.
  'bench-bedrock': { prefix: '/u/0/2', provider: 'bedrock', upstreamModel: 'us.anthropic.claude-bench-v1:0' },
  'bench-local': { prefix: '/u/0/2', provider: 'local', upstreamModel: 'qwen-bench:7b' },
};

/** The path a direct call takes for `model`: the upstream's own prefix for it, then the endpoint. */
export const directPath = (model, endpoint) => `${MODELS[model].prefix}${endpoint}`;

export async function startUpstream(place, core) {
  const child = startProcess(pinnedArgv(place, core, [process.execPath, join(BENCH, 'upstream.mjs')]));
  const origin = await waitForUrlLine(child);
  return { child, pid: child.pid, origin };
}

export async function startReference(place, upstreamOrigin, { extraNodeArgs = [], wrapper = [], startTimeoutMs } = {}) {
  const routes = Object.fromEntries(Object.entries(MODELS).map(([m, v]) => [m, v.prefix]));
  const argv = [
    ...wrapper,
    process.execPath,
    ...extraNodeArgs,
    join(BENCH, 'reference-forwarder.mjs'),
    '--upstream',
    upstreamOrigin,
    '--routes',
    JSON.stringify(routes),
    '--key',
    GATEWAY_KEY,
  ];
  const child = startProcess(pinnedArgv(place, place.sutCore, argv));
  const origin = await waitForUrlLine(child, startTimeoutMs);
  return { child, pid: child.pid, origin };
}

/**
 * A byte relay to the upstream on the proxies' core: socat, which copies bytes between two sockets and parses
 * nothing, so what it adds to a call is the hop itself (a second connection, and the proxies' core woken twice).
 * Undefined when socat is not installed (`apt-get install socat`): it is context, not a target.
 */
export async function startRelay(place, upstreamOrigin) {
  if (!hasCmd('socat')) return undefined;
  const port = await new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: p } = probe.address();
      probe.close(() => resolve(p));
    });
  });
  const up = new URL(upstreamOrigin);
  const argv = ['socat', `TCP-LISTEN:${port},bind=127.0.0.1,reuseaddr,fork,nodelay`, `TCP:${up.hostname}:${up.port},nodelay`];
  const child = startProcess(pinnedArgv(place, place.sutCore, argv));
  for (let i = 0; ; i++) {
    const ok = await new Promise((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      }).once('error', () => resolve(false));
    });
    if (ok) break;
    if (i === 50 || child.exitCode !== null) {
      await stopProcess(child, 500);
      throw new Error(`socat did not listen on ${port}: ${child.stderrText()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, pid: child.pid, origin: `http://127.0.0.1:${port}` };
}

/**
 * A config as a user would write one: six providers on the fake upstream (one a bedrock), exact
 * models plus globs, three key groups (a named env-var key, 200 sha256 keys, a
 * restricted CI group), and the gateway started with --log-file.
 */
/**
 * `limits` and `budget` for the `dev` group (a budget prices `bench-chat`, so that its requests reserve and settle
 * an amount) and `state` (shared limits and budgets in Redis): the `redis` scenario of bench/ab.mjs. `ledger`:
 * `server.ledger` (true or false; absent: the gateway's default), to measure what the usage ledger costs.
 * `inspector`: the config's `inspector` section (bench/instructions.mjs and pairs.mjs's `history-rows` set its `bodiesPerSecond`).
 */
export function writeGatewayConfig(dir, upstreamOrigin, { bedrock = true, limits, budget, state, ledger, inspector, tag = '' } = {}) {
  const base = (m) => `${upstreamOrigin}${MODELS[m].prefix}`;
  const sha = (k) => `sha256:${createHash('sha256').update(k).digest('hex')}`;
  const teamKeys = Array.from({ length: 200 }, (_, i) => ({ name: `member-${i}`, key: sha(`team-key-${i}-xxxxxxxxxxxxxxxx`) }));
  const config = {
    server: { host: '127.0.0.1', port: 0, ...(ledger !== undefined ? { ledger } : {}) },
    providers: {
      'openai-fast': { type: 'openai', baseUrl: `${base('bench-chat')}/v1`, apiKey: '${BENCH_OPENAI_KEY}' },
      'openai-slow': { type: 'openai', baseUrl: `${base('bench-chat-slow')}/v1`, apiKey: '${BENCH_OPENAI_KEY}' },
      'openai-mem': { type: 'openai', baseUrl: `${base('bench-chat-mem')}/v1`, apiKey: '${BENCH_OPENAI_KEY}' },
      anthropic: { type: 'anthropic', baseUrl: base('claude-bench'), apiKey: '${BENCH_ANTHROPIC_KEY}' },
      // A Bedrock API key (bearer) rather than SigV4, so signing is not part of what the bedrock stream row measures.
      ...(bedrock ? { bedrock: { type: 'bedrock', baseUrl: base('bench-bedrock'), apiKey: '${BENCH_BEDROCK_KEY}' } } : {}),
      local: { type: 'openai-compatible', baseUrl: `${base('bench-local')}/v1` },
      echo: { type: 'echo' },
    },
    models: {
      'bench-chat': {
        provider: 'openai-fast',
        upstreamModel: MODELS['bench-chat'].upstreamModel,
        features: ['tools', 'images', 'streaming'],
        ...(budget ? { price: { input: 3, output: 15 } } : {}),
      },
      'bench-chat-slow': { provider: 'openai-slow', upstreamModel: MODELS['bench-chat-slow'].upstreamModel },
      'bench-chat-mem': { provider: 'openai-mem', upstreamModel: MODELS['bench-chat-mem'].upstreamModel },
      'claude-bench': { provider: 'anthropic', upstreamModel: MODELS['claude-bench'].upstreamModel, description: 'Claude on the fake upstream' },
      ...(bedrock ? { 'bench-bedrock': { provider: 'bedrock', upstreamModel: MODELS['bench-bedrock'].upstreamModel, description: 'Claude on the fake upstream, as Bedrock' } } : {}),
      'bench-local': { provider: 'local', upstreamModel: MODELS['bench-local'].upstreamModel, protocols: ['chat', 'messages'], features: ['tools', 'streaming'], maxOutputTokens: 8192 },
      'gpt-*': { provider: 'openai-fast' },
      'claude-*': { provider: 'anthropic' },
      echo: { provider: 'echo' },
    },
    keyGroups: {
      dev: { keys: [{ name: 'bench', key: '${BENCH_GATEWAY_KEY}' }], models: ['*'], ...(limits ? { limits } : {}), ...(budget ? { budget } : {}) },
      team: { keys: teamKeys, models: ['bench-*', 'claude-*', 'gpt-*'] },
      ci: { keys: [{ name: 'ci-runner', key: sha('ci-key-yyyyyyyyyyyyyyyy') }], models: ['bench-chat'], protocols: ['chat'], features: ['streaming'] },
    },
    ...(state ? { state } : {}),
    ...(inspector ? { inspector } : {}),
  };
  const file = join(dir, `gateway${tag ? `.${tag}` : ''}.config.json`);
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

/**
 * `bin` runs another build of the gateway (an A/B of two builds); default: this repo's.
 * `wrapper` is a command that runs node (valgrind, for instructions.mjs); `extraArgs` go to `serve`.
 * `bedrock: false` leaves the bedrock provider out, for a build from before it existed.
 */
export async function startGateway(
  place,
  dir,
  upstreamOrigin,
  { extraNodeArgs = [], tag = 'gw', bin = join(REPO, 'bin', 'model-gateway.js'), wrapper = [], extraArgs = [], startTimeoutMs, bedrock = true, limits, budget, state, ledger, inspector } = {},
) {
  // A config of its own when it differs from the others' (limits, budget, state, ledger, inspector), so that none overwrites another's.
  const own = limits || budget || state || ledger !== undefined || inspector;
  const configFile = writeGatewayConfig(dir, upstreamOrigin, { bedrock, limits, budget, state, ledger, inspector, tag: own ? tag : '' });
  const stdoutFile = join(dir, `${tag}.stdout.log`);
  const logFile = join(dir, `${tag}.requests.jsonl`);
  const argv = [
    ...wrapper,
    process.execPath,
    ...extraNodeArgs,
    bin,
    'serve',
    '--config',
    configFile,
    '--port',
    '0',
    '--log-file',
    logFile,
    '--no-color',
    ...extraArgs,
  ];
  const child = startProcess(pinnedArgv(place, place.sutCore, argv), {
    stdoutFile,
    cwd: dir,
    env: {
      BENCH_GATEWAY_KEY: GATEWAY_KEY,
      BENCH_OPENAI_KEY: 'sk-bench-openai-provider-key-0000',
      BENCH_ANTHROPIC_KEY: 'sk-ant-bench-provider-key-0000',
      BENCH_BEDROCK_KEY: 'bedrock-api-key-bench-0000',
      NO_COLOR: '1',
      // Its files (the install secret, the usage ledger a line per request) in the scratch folder, not the user's.
      MODEL_GATEWAY_DATA_DIR: join(dir, `${tag}.data`),
    },
  });
  const origin = await waitForUrlInFile(stdoutFile, child, startTimeoutMs);
  // The banner (one write, so already complete) has the inspector's one-time link when the inspector is on.
  const inspectorLink = /(http:\/\/\S+\/_inspector\/\?token=[\w-]+)/.exec(readFileSync(stdoutFile, 'utf8'))?.[1];
  return { child, pid: child.pid, origin, stdoutFile, logFile, inspectorLink };
}
