/**
 * The files of a gateway started in the background, in `<dataDir>/background/`, readable by the user only:
 * - `gateway.json`: written by that `serve` once it listens (its pid, URL and inspector link),
 *   removed when it stops;
 * - `key`: the gateway key a launcher generated for the built-in default config, so that a second
 *   launcher, `status` and the clients it starts can use the same gateway;
 * - `launchers/<pid>`: one per launcher whose client is running (background.ts).
 * Each file is read as hostile: a bad one is treated as absent. A module of its own because `serve`
 * writes the state file: it loads none of what starts, probes and stops a background gateway.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BackgroundFiles {
  readonly dir: string;
  readonly state: string;
  readonly key: string;
  readonly launchers: string;
  readonly log: string;
}

export function backgroundFiles(dataDir: string): BackgroundFiles {
  const dir = join(dataDir, 'background');
  return { dir, state: join(dir, 'gateway.json'), key: join(dir, 'key'), launchers: join(dir, 'launchers'), log: join(dir, 'gateway.log') };
}

/** What a background `serve` writes once it listens. */
export interface BackgroundState {
  readonly pid: number;
  readonly url: string;
  readonly inspectorUrl?: string | undefined;
}

/** A state file is a few hundred bytes; more is not one. */
export const MAX_STATE_BYTES = 16 * 1024;

export function readSmall(file: string): string | undefined {
  try {
    const text = readFileSync(file, 'utf8');
    return text.length <= MAX_STATE_BYTES ? text : undefined;
  } catch {
    return undefined;
  }
}

export function readState(files: BackgroundFiles): BackgroundState | undefined {
  const text = readSmall(files.state);
  if (text === undefined) return undefined;
  try {
    const o = JSON.parse(text) as Record<string, unknown>;
    if (!Number.isInteger(o.pid) || (o.pid as number) <= 0 || typeof o.url !== 'string' || !/^https?:\/\//.test(o.url)) return undefined;
    const inspectorUrl = typeof o.inspectorUrl === 'string' && /^https?:\/\//.test(o.inspectorUrl) ? o.inspectorUrl : undefined;
    return { pid: o.pid as number, url: o.url, inspectorUrl };
  } catch {
    return undefined;
  }
}

/** Written by `serve --background-state`, for the user only. */
export function writeState(file: string, state: BackgroundState): void {
  writePrivate(file, `${JSON.stringify(state)}\n`);
}

/** Removes the state file if it still names `pid` (a newer gateway's is left alone). */
export function clearState(file: string, pid: number): void {
  const text = readSmall(file);
  if (text === undefined) return;
  try {
    if ((JSON.parse(text) as { pid?: unknown }).pid === pid) rmSync(file, { force: true });
  } catch {
    rmSync(file, { force: true });
  }
}

export function writePrivate(file: string, text: string): void {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  writeFileSync(file, text, { mode: 0o600 });
  // A file that existed keeps its mode through writeFileSync.
  chmodSync(file, 0o600);
}

export const readKey = (files: BackgroundFiles): string | undefined => readSmall(files.key)?.trim() || undefined;
export const writeKey = (files: BackgroundFiles, key: string): void => writePrivate(files.key, `${key}\n`);
