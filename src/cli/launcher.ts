/**
 * The processes that launched us and must take us down with them. Run through npm (npx, npm exec,
 * npm run), the gateway is npm's grandchild: npm -> sh -c -> node. npm passes SIGTERM on to the shell,
 * which dies without passing it on; a SIGKILLed npm passes nothing. Either way the gateway would live
 * on without its launcher, holding the port. So under npm the gateway watches the chain of processes
 * up to npm, and stops when a link of it breaks.
 *
 * Started any other way (a shell, systemd, a container, `setsid … &`) nothing is watched: the gateway
 * is then the process the signals reach, and one its starter may leave running on purpose.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** A parent-child link that must hold: `child`'s parent is `parent`. */
export interface Link {
  readonly child: number;
  readonly parent: number;
}

/** How often the chain is looked at: a stopped launcher leaves the port held at most this long. */
export const LAUNCHER_CHECK_MS = 1000;

/** Shells npm runs a command line in; the chain goes on through them to npm. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ash', 'ksh', 'fish', 'cmd.exe', 'powershell.exe', 'pwsh']);

interface ProcessFacts {
  readonly ppid: number;
  readonly name: string;
}

/** A process's parent and name: from /proc on Linux, from `ps` elsewhere; undefined when it is gone. */
async function factsOf(pid: number): Promise<ProcessFacts | undefined> {
  try {
    // /proc/PID/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses, so cut at the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const [state, ppid] = stat.slice(close + 2).split(' ');
    // A zombie has died and not yet been waited for: gone.
    if (state === 'Z') return undefined;
    return { ppid: Number(ppid), name: stat.slice(stat.indexOf('(') + 1, close) };
  } catch {
    // No /proc (macOS, the BSDs) or no such process.
  }
  if (process.platform === 'win32') return undefined;
  try {
    // Asynchronous: the check runs every second while the gateway serves, and a blocking spawn would stall every request.
    const { stdout } = await execFileAsync('ps', ['-o', 'ppid=,comm=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000 });
    const m = /^\s*(\d+)\s+(.*?)\s*$/.exec(stdout);
    return m ? { ppid: Number(m[1]), name: m[2]!.split('/').pop()! } : undefined;
  } catch {
    return undefined;
  }
}

/** npm sets these in what it runs: npm_command for `npm exec`/npx and `npm run`, npm_lifecycle_event for scripts. */
export const underNpm = (env: Readonly<Record<string, string | undefined>>) =>
  env.npm_command !== undefined || env.npm_lifecycle_event !== undefined;

/**
 * The links from this process up to npm: our parent, and through the shells npm runs commands in,
 * the first process that is not a shell (npm). Empty when not started by npm.
 */
export async function launcherChain(env: Readonly<Record<string, string | undefined>>, self = process.pid, parent = process.ppid): Promise<Link[]> {
  if (!underNpm(env) || parent <= 1) return [];
  const links: Link[] = [{ child: self, parent }];
  let pid = parent;
  // A few steps at most: `npm run` may run npx, which runs a shell, which runs us.
  for (let i = 0; i < 4; i++) {
    const facts = await factsOf(pid);
    if (!facts || !SHELLS.has(facts.name) || facts.ppid <= 1) break;
    links.push({ child: pid, parent: facts.ppid });
    pid = facts.ppid;
  }
  return links;
}

/** Whether `link` still holds: the child is alive and still the parent's (a child whose parent died is handed to another). */
export async function linkHolds(link: Link): Promise<boolean> {
  if (link.child === process.pid) return process.ppid === link.parent;
  const facts = await factsOf(link.child);
  if (facts) return facts.ppid === link.parent;
  // Nothing to read the parent from (Windows): at least the parent must be alive.
  try {
    process.kill(link.parent, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Calls `onGone` once, when a link of the chain breaks. Returns a function that stops watching. */
export function watchLauncher(links: readonly Link[], onGone: () => void, everyMs = LAUNCHER_CHECK_MS): () => void {
  if (links.length === 0) return () => undefined;
  let checking = false;
  let stopped = false;
  const timer = setInterval(() => {
    // A check still running (a slow `ps`) is not doubled.
    if (checking) return;
    checking = true;
    void Promise.all(links.map(linkHolds)).then((holds) => {
      checking = false;
      if (stopped || holds.every(Boolean)) return;
      stopped = true;
      clearInterval(timer);
      onGone();
    });
  }, everyMs);
  // The watch alone must not keep the process alive.
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
