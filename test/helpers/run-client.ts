/**
 * Runs a real client (Claude Code, Codex) as a child process with a hard timeout, stdin from
 * /dev/null and the environment it is given (nothing inherited), in its own process group so
 * that a timeout kills the native binaries it starts too.
 */
import { spawn } from 'node:child_process';

export interface ClientRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Resolves when the client exits; rejects (after killing its process group) when `timeoutMs` is exceeded. */
export function runClient(command: string, args: readonly string[], opts: { cwd: string; env: Record<string, string>; timeoutMs: number }): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      reject(new Error(`${command} ${args.join(' ')} timed out after ${opts.timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
