/**
 * A gateway in a child process of its own (the real `bin`, or test/helpers/gateway-process.ts for short
 * Redis expiries), its output gathered, with a home and data folder of its own: for tests that kill a
 * gateway outright (SIGKILL) and start another.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait-for.js';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** `node --import tsx` arguments that run test/helpers/gateway-process.ts on `file` with slots and reservations living `ttlMs`. */
export const gatewayProcessArgs = (file: string, ttlMs: number, ledgerDir?: string): string[] => [
  '--import',
  'tsx',
  join(REPO, 'test/helpers/gateway-process.ts'),
  file,
  String(ttlMs),
  ...(ledgerDir !== undefined ? [ledgerDir] : []),
];

export interface SpawnedGateway {
  readonly child: ChildProcess;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** Its URL, once it prints that it listens; rejects if it exits first or takes `listenTimeoutMs`. */
  readonly url: Promise<string>;
}

/** Starts `node args…`; `children` collects it, for the suite to kill at its end. */
export function spawnGateway(args: readonly string[], children: ChildProcess[], listenTimeoutMs: number): SpawnedGateway {
  const home = mkdtempSync(join(tmpdir(), 'mgw-spawned-'));
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', HOME: home, MODEL_GATEWAY_DATA_DIR: home, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const url = waitFor(() => {
    if (child.exitCode !== null) throw new Error(`the gateway exited: ${out}`);
    return /listening on (http:\/\/\S+)/.exec(out)?.[1];
  }, 'the gateway to listen', listenTimeoutMs);
  return { child, output: () => out, url };
}
