/** What a command may touch of the outside world, injected so tests run commands in-process. */
import { launcherChain, watchLauncher } from './launcher.js';

export interface Writer {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export interface CliIo {
  readonly stdout: Writer;
  readonly stderr: Writer;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /**
   * Resolves with the reason when the process is asked to stop: SIGINT, SIGTERM, SIGHUP (its terminal
   * closed), or its launcher gone (see launcher.ts). Tests resolve it themselves. A command that waits
   * for it (serve, inspect) runs until then even when its output goes away; any other command ends
   * quietly when its stdout closes.
   */
  readonly stopSignal: () => Promise<string>;
}

/** Set by stopSignal(): the command serves until stopped, whatever happens to its output. */
let outlivesOutput = false;
let stdoutGone = false;
let outputWatched = false;

/**
 * The one place that handles a stdout or stderr that can no longer be written: the reader of a pipe
 * went away (`| head -2`: EPIPE), the terminal closed (EIO), the stream was destroyed. Node emits
 * these as 'error' events, which unhandled end the process with a stack trace.
 */
function watchOutput(): void {
  if (outputWatched) return;
  outputWatched = true;
  process.stdout.on('error', () => {
    if (stdoutGone) return;
    stdoutGone = true;
    if (outlivesOutput) {
      process.stderr.write('stdout closed: nothing more is printed there; still serving until stopped.\n');
      return;
    }
    // A command whose output nobody reads any more has nothing left to do: end quietly, as `| head` expects.
    process.exit(process.exitCode ?? 0);
  });
  // Hints and errors with nowhere to go are dropped; the command goes on with its stdout.
  process.stderr.on('error', () => undefined);
}

/** process.stdout, written no more once it has failed: a dead pipe is not tried again for every log line. */
const stdout: Writer = {
  get isTTY() {
    return process.stdout.isTTY;
  },
  write: (text: string) => !stdoutGone && process.stdout.write(text),
};

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export function processIo(): CliIo {
  watchOutput();
  return {
    stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    stopSignal: () =>
      new Promise((resolve) => {
        outlivesOutput = true;
        let unwatch: () => void = () => {};
        let settled = false;
        const on = (reason: string) => {
          settled = true;
          for (const s of STOP_SIGNALS) process.off(s, on);
          unwatch();
          // A second signal while draining means "now".
          process.once('SIGINT', () => process.exit(130));
          resolve(reason);
        };
        for (const s of STOP_SIGNALS) process.on(s, on);
        void launcherChain(process.env).then((links) => {
          // Stopped while the chain was being read: nothing to watch any more.
          if (settled) return;
          unwatch = watchLauncher(links, () => on('launcher exited'));
        });
      }),
  };
}
