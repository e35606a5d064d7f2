/**
 * Processes for the benchmark: spawn pinned to a core with raised priority,
 * read CPU time and memory from /proc, and stop them cleanly.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';

export const hasCmd = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** Clock ticks per second for /proc/<pid>/stat (getconf CLK_TCK, 100 on Linux almost everywhere). */
export const CLK_TCK = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(r.stdout?.trim());
  return Number.isFinite(n) && n > 0 ? n : 100;
})();

export const HAS_PROC = existsSync('/proc/self/stat');

/** Core placement: the SUT on core 0; upstream and load on core 1 (when taskset exists and there are 2+ cores). */
export function placement(disable = false) {
  const n = cpus().length;
  const taskset = !disable && n >= 2 && hasCmd('taskset');
  const canNice = hasCmd('nice') && typeof process.getuid === 'function' && process.getuid() === 0;
  return { cores: n, taskset, nice: canNice, sutCore: 0, loadCore: n >= 2 ? 1 : 0 };
}

/** The argv that runs `argv` on `core` (if pinning) at nice -10 (if root). taskset and nice exec, so the pid is the program's. */
export function pinnedArgv(place, core, argv) {
  let out = argv;
  if (place.nice) out = ['nice', '-n', '-10', ...out];
  if (place.taskset) out = ['taskset', '-c', String(core), ...out];
  return out;
}

/** Moves every thread of `pid` to `core` (used to make the direct upstream the SUT for throughput phases). */
export function movePid(place, pid, core) {
  if (!place.taskset) return;
  spawnSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
}

/**
 * Starts a long-running process. stdout goes to `stdoutFile` when given (the gateway's log),
 * else it is read for the first JSON line `{"url": ...}`.
 */
export function startProcess(argv, { stdoutFile, env, cwd } = {}) {
  const out = stdoutFile ? openSync(stdoutFile, 'w') : 'pipe';
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', out, 'pipe'], env: { ...process.env, ...env }, cwd });
  if (typeof out === 'number') closeSync(out);
  let stderr = '';
  child.stderr.on('data', (d) => {
    if (stderr.length < 20_000) stderr += d;
  });
  child.stderrText = () => stderr;
  return child;
}

/** Waits for `{"url": ...}` on a child's stdout pipe. */
export function waitForUrlLine(child, timeoutMs = 15_000) {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`no url within ${timeoutMs} ms; stderr: ${child.stderrText()}`)), timeoutMs);
    child.stdout.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(buf.slice(0, nl)).url);
        } catch (err) {
          reject(err);
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening; stderr: ${child.stderrText()}`));
    });
  });
}

/** Polls a log file for the gateway's banner URL. */
export async function waitForUrlInFile(file, child, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (Date.now() < until) {
    if (exited) throw new Error(`gateway exited before listening; stderr: ${child.stderrText()}\nstdout: ${safeRead(file)}`);
    const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(safeRead(file));
    if (m) return m[1];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gateway did not print its URL within ${timeoutMs} ms; stderr: ${child.stderrText()}`);
}

const safeRead = (file) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
export function stopProcess(child, graceMs = 6000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

const HAS_SCHEDSTAT = existsSync('/proc/self/schedstat');

/** CPU seconds (user + system, all threads) the process has used: `cpuReading(pid).total`. */
export const cpuSeconds = (pid) => cpuReading(pid).total;

/**
 * The CPU seconds the process has used: in all (user + system), and apart for its main thread, where its
 * JavaScript runs, and its other threads together (V8's collector helpers and compiler, libuv's pool).
 * From /proc/<pid>/task/<tid>/schedstat (on-CPU nanoseconds) when the kernel has it, since /proc/<pid>/stat
 * counts in 10 ms ticks; else the total from stat's utime + stime, and no split (NaN).
 */
export function cpuReading(pid) {
  const none = { total: NaN, main: NaN, other: NaN };
  if (!HAS_PROC) return none;
  if (!HAS_SCHEDSTAT) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // rest[0] is field 3 (state); utime is field 14, stime field 15.
      return { ...none, total: (Number(rest[11]) + Number(rest[12])) / CLK_TCK };
    } catch {
      return none;
    }
  }
  let main = 0;
  let other = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
        if (Number(tid) === pid) main += ns;
        else other += ns;
      } catch {
        // a thread that just ended
      }
    }
  } catch {
    return none;
  }
  return { total: (main + other) / 1e9, main: main / 1e9, other: other / 1e9 };
}

/** VmRSS and VmHWM (peak RSS) in MB. */
export function memoryMb(pid) {
  if (!HAS_PROC) return { rss: NaN, hwm: NaN };
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return { rss: NaN, hwm: NaN };
  }
}

/** Resets the process's VmHWM to its current RSS (Linux >= 4.0, own processes); false where that is refused. */
export function resetPeakRss(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Per-core busy/total jiffies from /proc/stat. */
export function coreTimes() {
  if (!HAS_PROC) return [];
  const lines = readFileSync('/proc/stat', 'utf8').split('\n').filter((l) => /^cpu\d+ /.test(l));
  return lines.map((l) => {
    const f = l.trim().split(/\s+/).slice(1).map(Number);
    const idle = (f[3] ?? 0) + (f[4] ?? 0);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  });
}

/** Busy % per core between two coreTimes() readings. */
export function coreBusy(before, after) {
  return after.map((a, i) => {
    const b = before[i];
    if (!b) return NaN;
    const total = a.total - b.total;
    return total > 0 ? Math.round((1000 * (a.busy - b.busy)) / total) / 10 : NaN;
  });
}
