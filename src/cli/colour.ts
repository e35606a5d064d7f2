import { Chalk, type ChalkInstance } from 'chalk';
import type { Writer } from './io.js';

/** Colour only on a TTY, never with NO_COLOR or --no-color; FORCE_COLOR forces it on. */
export function chalkFor(out: Writer, env: Readonly<Record<string, string | undefined>>, color: boolean): ChalkInstance {
  if (!color || (env.NO_COLOR !== undefined && env.NO_COLOR !== '')) return new Chalk({ level: 0 });
  const forced = env.FORCE_COLOR;
  if (forced !== undefined && forced !== '0' && forced !== 'false') return new Chalk({ level: forced === '3' ? 3 : forced === '1' ? 1 : 2 });
  return new Chalk({ level: out.isTTY ? 2 : 0 });
}
