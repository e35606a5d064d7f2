/**
 * The lines `serve --watch` prints when the config file changes: what changed (one line per
 * entry, coloured by kind), what could not be applied live, and why a reload was refused.
 * Pure text; `watch-config.ts` decides when to print.
 */
import type { ChalkInstance } from 'chalk';
import type { ChangeOp, ChangeSection, ConfigChange, FieldChange } from '../config/diff.js';
import { printable, printableLines } from '../log/terminal-text.js';

const pad2 = (n: number) => String(n).padStart(2, '0');

/** The request log's clock (HH:MM:SS, local time), so reload lines sit in the log's rhythm. */
export function clock(epochMs: number): string {
  const d = new Date(epochMs);
  return `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
}

const SIGN = { added: '+', removed: '-', changed: '~' } as const satisfies Record<ChangeOp, string>;
const WIDTH = Math.max(...(['provider', 'model', 'group', 'key', 'server'] as const satisfies readonly ChangeSection[]).map((s) => s.length));

function colourOf(c: ChalkInstance, op: ChangeOp): ChalkInstance {
  return op === 'added' ? c.green : op === 'removed' ? c.red : c.yellow;
}

/** Names and values come from the config file: printed escaped. */
function fieldText(f: FieldChange): string {
  if ('secret' in f) return f.field === 'credential' ? 'credential changed' : `${printable(f.field)} changed`;
  if (f.field === 'route') return `re-mapped ${printable(f.from)} → ${printable(f.to)}`;
  return `${printable(f.field)} ${printable(f.from)} → ${printable(f.to)}`;
}

/** One change as an indented line: `  ~ model    gpt-4.1: re-mapped openai → ollama/qwen`. */
export function changeLine(change: ConfigChange, c: ChalkInstance): string {
  const colour = colourOf(c, change.op);
  const what = change.op === 'changed' ? `: ${change.fields.map(fieldText).join('; ')}` : change.detail ? c.gray(` (${printable(change.detail)})`) : '';
  return `  ${colour(SIGN[change.op])} ${change.section.padEnd(WIDTH)} ${colour.bold(printable(change.name))}${what}`;
}

export interface AppliedSummary {
  readonly file: string;
  /** The number the new config is known by in later lines (`config #3 retired`). */
  readonly generation: number;
  /** Changes that took effect. */
  readonly applied: readonly ConfigChange[];
  /** Server fields that only a restart can change (host, port, dataDir, state, metrics, tracing), with where it still listens. */
  readonly notApplied: readonly FieldChange[];
  readonly url: string;
  /** Requests still running on the previous config. */
  readonly inFlight: number;
  readonly now: number;
}

export function formatApplied(s: AppliedSummary, c: ChalkInstance): string {
  const count = s.applied.length;
  const file = printable(s.file);
  const head =
    count === 0
      ? `${c.gray(clock(s.now))} ${c.cyan('↻')} ${file} changed: nothing to apply`
      : `${c.gray(clock(s.now))} ${c.cyan.bold('↻')} reloaded ${file} ${c.gray(`(config #${s.generation})`)}: ${count} change${count === 1 ? '' : 's'}`;
  const lines = [head, ...s.applied.map((change) => changeLine(change, c))];
  for (const f of s.notApplied) {
    const why =
      f.field === 'dataDir'
        ? 'the data folder is read at start (restart serve to use it)'
        : f.field.startsWith('state.')
          ? 'the gateway connects to Redis at start (restart serve to use it)'
          : f.field === 'metrics' || f.field.startsWith('metrics.')
            ? 'metrics are set up at start (restart serve to use this)'
            : f.field === 'tracing' || f.field.startsWith('tracing.')
              ? 'tracing is set up at start (restart serve to use this)'
              : `a running server cannot move; still listening on ${printable(s.url)} (restart serve to use the new address)`;
    lines.push(`  ${c.yellow.bold('!')} ${'server'.padEnd(WIDTH)} ${fieldText(f)} ${c.yellow('not applied')}: ${why}`);
  }
  if (count > 0 && s.inFlight > 0) {
    lines.push(
      c.gray(`  ${s.inFlight} request${s.inFlight === 1 ? '' : 's'} in flight finish${s.inFlight === 1 ? 'es' : ''} on config #${s.generation - 1}`),
    );
  }
  return lines.join('\n');
}

/** An edit that did not load: the old config keeps serving. `problem` is the `ConfigError` text as `serve` prints it. */
export function formatRejected(file: string, generation: number, problem: string, now: number, c: ChalkInstance): string {
  return `${c.gray(clock(now))} ${c.red.bold('✗')} ${printable(file)} ${c.red('not applied')}; still serving config #${generation}:\n${c.red(printableLines(problem))}`;
}

export function formatRetired(generation: number, inFlight: number, now: number, c: ChalkInstance): string {
  const requests = inFlight === 1 ? 'its last request' : `the ${inFlight} requests it was serving`;
  return c.gray(`${clock(now)} config #${generation} retired: ${requests} finished; its providers are closed`);
}
