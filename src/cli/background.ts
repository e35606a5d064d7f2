/**
 * A gateway started in the background for the clients `model-gateway claude|codex|gemini` launch:
 * found, probed, started and stopped. Its files are background-files.ts's. Each launcher whose client
 * is running has a file in `launchers/`; the last to leave stops the gateway a launcher started
 * (never one started by hand).
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { type BackgroundFiles, type BackgroundState, clearState, MAX_STATE_BYTES, readSmall, readState } from './background-files.js';

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What answers at `url`: this gateway (its version), something else, or nothing. */
export type Probe = { readonly kind: 'gateway'; readonly version: string } | { readonly kind: 'other' } | { readonly kind: 'none' };

export async function probeGateway(url: string): Promise<Probe> {
  try {
    const answer = await request(new URL('/', url), { headersTimeout: 2000, bodyTimeout: 2000 });
    const text = await answer.body.text();
    const body = JSON.parse(text.slice(0, MAX_STATE_BYTES)) as { name?: unknown; version?: unknown };
    return body.name === 'model-gateway' && typeof body.version === 'string' ? { kind: 'gateway', version: body.version } : { kind: 'other' };
  } catch (err) {
    const code = (err as { code?: string }).code;
    return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EADDRNOTAVAIL' ? { kind: 'none' } : { kind: 'other' };
  }
}

/** The running background gateway, if its state file names a live process that answers as the gateway. */
export async function runningBackground(files: BackgroundFiles): Promise<BackgroundState | undefined> {
  const state = readState(files);
  if (state === undefined) return undefined;
  if (!alive(state.pid) || (await probeGateway(state.url)).kind !== 'gateway') {
    rmSync(files.state, { force: true });
    return undefined;
  }
  return state;
}

/** How to run this same program again: the binary alone, or node with the script. */
export function selfCommand(): { readonly command: string; readonly args: readonly string[] } {
  const script = process.argv[1];
  return script !== undefined && /\.(c|m)?js$/.test(script) ? { command: process.execPath, args: [script] } : { command: process.execPath, args: [] };
}

export interface StartOptions {
  readonly configFile: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** How long the gateway may take to listen. */
  readonly timeoutMs?: number;
}

/**
 * Starts `serve` detached, its terminal log in `gateway.log`, and waits until it has written its
 * state. Its environment leaves out npm's variables: a background gateway must not stop when the
 * npm process that ran its launcher does (see launcher.ts).
 */
export async function startBackground(files: BackgroundFiles, options: StartOptions): Promise<BackgroundState> {
  mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  rmSync(files.state, { force: true });
  const self = selfCommand();
  const args = [...self.args, 'serve', '--no-color', '--background-state', files.state, ...(options.configFile !== undefined ? ['--config', options.configFile] : [])];
  const env = Object.fromEntries(Object.entries(options.env).filter(([name]) => !name.startsWith('npm_')));
  const log = openSync(files.log, 'a', 0o600);
  let exited: number | null | undefined;
  try {
    const child = spawn(self.command, args, { detached: true, stdio: ['ignore', log, log], env });
    child.once('exit', (code) => {
      exited = code;
    });
    child.unref();
    const deadline = Date.now() + (options.timeoutMs ?? 15_000);
    while (Date.now() < deadline) {
      const state = readState(files);
      if (state !== undefined && state.pid === child.pid) return state;
      if (exited !== undefined) break;
      await sleep(50);
    }
    if (exited === undefined) child.kill('SIGTERM');
  } finally {
    closeSync(log);
  }
  throw new Error(`the gateway did not start (its log: ${files.log}):\n${logTail(files.log)}`);
}

/** The last lines of the background log, for an error message. */
function logTail(file: string): string {
  const text = readSmall(file) ?? '';
  return text.split('\n').slice(-8).join('\n');
}

/** Stops a background gateway and waits (up to `timeoutMs`) for it to go; whether it went. */
export async function stopBackground(files: BackgroundFiles, state: BackgroundState, timeoutMs = 8000): Promise<boolean> {
  try {
    process.kill(state.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
  const deadline = Date.now() + timeoutMs;
  while (alive(state.pid) && Date.now() < deadline) await sleep(50);
  const gone = !alive(state.pid);
  if (gone) clearState(files.state, state.pid);
  return gone;
}

/** Registers this launcher while its client runs. */
export function attach(files: BackgroundFiles, pid = process.pid): void {
  mkdirSync(files.launchers, { recursive: true, mode: 0o700 });
  writeFileSync(join(files.launchers, String(pid)), '', { mode: 0o600 });
}

/** Unregisters this launcher; the launchers still running (stale entries removed). */
export function detach(files: BackgroundFiles, pid = process.pid): number[] {
  rmSync(join(files.launchers, String(pid)), { force: true });
  let names: string[];
  try {
    names = readdirSync(files.launchers);
  } catch {
    return [];
  }
  const live: number[] = [];
  for (const name of names) {
    const other = Number(name);
    if (Number.isInteger(other) && other > 0 && alive(other)) live.push(other);
    else rmSync(join(files.launchers, name), { force: true });
  }
  return live;
}
