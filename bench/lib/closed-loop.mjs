/**
 * Closed-loop throughput with wrk (C, cheapest per request) when it is
 * installed, else autocannon (npm devDependency). Either runs as its own
 * process pinned to the load core. Only throughput and CPU per request are
 * taken from here; latency under fixed rate comes from load.mjs's open loop.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pinnedArgv } from './proc.mjs';

const require = createRequire(import.meta.url);

export function closedLoopTool(prefer) {
  const wrk = spawnSync('sh', ['-c', 'command -v wrk'], { stdio: 'ignore' }).status === 0;
  let autocannon;
  try {
    autocannon = join(require.resolve('autocannon/package.json'), '..', 'autocannon.js');
  } catch {
    autocannon = undefined;
  }
  if (prefer === 'autocannon' && autocannon) return { name: 'autocannon', path: autocannon };
  if (wrk) return { name: 'wrk', path: 'wrk' };
  if (autocannon) return { name: 'autocannon', path: autocannon };
  throw new Error('No closed-loop load tool: install wrk (apt-get install -y wrk) or run npm install (autocannon).');
}

const lua = (s) => JSON.stringify(s); // JSON string literals are valid Lua string literals for ASCII

function wrkScript(dir, name, headers, bodyFile) {
  const file = join(dir, `${name}.lua`);
  const lines = [
    `local f = assert(io.open(${lua(bodyFile)}, "rb"))`,
    'wrk.body = f:read("*a")',
    'f:close()',
    'wrk.method = "POST"',
    ...Object.entries({ 'content-type': 'application/json', ...headers }).map(([k, v]) => `wrk.headers[${lua(k)}] = ${lua(v)}`),
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'WRKJSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\\n\',',
    '    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,',
    '    latency:percentile(50), latency:percentile(99), latency.max))',
    'end',
  ];
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function run(argv, hardLimitMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), hardLimitMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`${argv.join(' ')} exited ${code}: ${err.slice(0, 500)}`));
      else resolve(out);
    });
  });
}

/**
 * Runs one closed-loop phase: `connections` connections for `durationS` seconds.
 * `around.before()`/`around.after()` are called right before the tool starts and right after it exits.
 */
export async function closedLoop(tool, { place, dir, name, url, headers, bodyFile, connections, durationS, around }) {
  let argv;
  if (tool.name === 'wrk') {
    const script = wrkScript(dir, name, headers, bodyFile);
    argv = ['wrk', '-t1', `-c${connections}`, `-d${durationS}s`, '--timeout', '10s', '-s', script, url];
  } else {
    argv = [process.execPath, tool.path, '-c', String(connections), '-d', String(durationS), '-m', 'POST', '-i', bodyFile, '-j', '-n'];
    for (const [k, v] of Object.entries({ 'content-type': 'application/json', ...headers })) argv.push('-H', `${k}=${v}`);
    argv.push(url);
  }
  around?.before?.();
  const out = await run(pinnedArgv(place, place.loadCore, argv), (durationS + 30) * 1000);
  around?.after?.();
  if (tool.name === 'wrk') {
    const line = out.split('\n').find((l) => l.startsWith('WRKJSON '));
    if (!line) throw new Error(`wrk printed no summary: ${out.slice(0, 500)}`);
    const j = JSON.parse(line.slice(8));
    const seconds = j.duration_us / 1e6;
    return {
      tool: 'wrk',
      requests: j.requests,
      seconds,
      rps: j.requests / seconds,
      p50Ms: j.p50_us / 1000,
      p99Ms: j.p99_us / 1000,
      errors: j.connect + j.read + j.write + j.timeout,
      non2xx: j.status,
    };
  }
  const j = JSON.parse(out.slice(out.indexOf('{')));
  return {
    tool: 'autocannon',
    requests: j.requests.total,
    seconds: j.duration,
    rps: j.requests.total / j.duration,
    p50Ms: j.latency.p50,
    p99Ms: j.latency.p99,
    errors: j.errors + j.timeouts,
    non2xx: j.non2xx,
  };
}
