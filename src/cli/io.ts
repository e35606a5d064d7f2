/** What a command may touch of the outside world, injected so tests run commands in-process. */
export interface Writer {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export interface CliIo {
  readonly stdout: Writer;
  readonly stderr: Writer;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); tests resolve it themselves. */
  readonly stopSignal: () => Promise<string>;
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    stopSignal: () =>
      new Promise((resolve) => {
        const on = (signal: string) => {
          process.off('SIGINT', on);
          process.off('SIGTERM', on);
          // A second signal while draining means "now".
          process.once('SIGINT', () => process.exit(130));
          resolve(signal);
        };
        process.on('SIGINT', on);
        process.on('SIGTERM', on);
      }),
  };
}
