import { describe, expect, it } from 'vitest';
import { VERSION } from '../../version.js';
import { createProgram } from '../main.js';
import { inspectorOptions, type ServeFlags } from './serve.js';

const HOUR = 60 * 60 * 1000;

describe("serve's inspector flags", () => {
  it.each([
    ['none: the inspector keeps its defaults', {}, {}],
    ['--inspector-keep 50', { inspectorKeep: 50 }, { capacity: 50 }],
    ['--inspector-memory 8 (MiB)', { inspectorMemory: 8 }, { maxBytes: 8 * 1024 * 1024 }],
    ['--inspector-stream-buffer 2 (KiB)', { inspectorStreamBuffer: 2 }, { maxBufferedBytes: 2048 }],
    ['--inspector-session-idle 1 (hours)', { inspectorSessionIdle: 1 }, { sessionIdleMs: HOUR }],
    ['--inspector-session-max 48 (hours)', { inspectorSessionMax: 48 }, { sessionMaxMs: 48 * HOUR }],
    [
      'all of them together',
      { inspectorKeep: 10, inspectorMemory: 1, inspectorStreamBuffer: 64, inspectorSessionIdle: 2, inspectorSessionMax: 3 },
      { capacity: 10, maxBytes: 1024 * 1024, maxBufferedBytes: 64 * 1024, sessionIdleMs: 2 * HOUR, sessionMaxMs: 3 * HOUR },
    ],
  ])('%s', (_, flags, options) => {
    expect(inspectorOptions({ color: false, ...flags })).toEqual(options);
  });

  it.each([
    ['the config alone', {}, { capacity: 40, maxBytes: 2 * 1024 * 1024, history: false, bodiesPerSecond: 5 }],
    ['--inspector-keep and --inspector-memory over the config', { inspectorKeep: 7, inspectorMemory: 3 }, { capacity: 7, maxBytes: 3 * 1024 * 1024, history: false, bodiesPerSecond: 5 }],
    ['--inspector-history over the config', { inspectorHistory: true }, { capacity: 40, maxBytes: 2 * 1024 * 1024, history: true, bodiesPerSecond: 5 }],
  ])('inspector.keep, inspector.memoryMiB, inspector.history, inspector.bodiesPerSecond: %s', (_, flags, options) => {
    expect(inspectorOptions({ color: false, ...flags }, { keep: 40, memoryMiB: 2, history: false, bodiesPerSecond: 5 })).toEqual(options);
  });

  it('--no-inspector-history over a config that keeps history; neither flag leaves the config as it is', () => {
    expect(inspectorOptions({ color: false, inspectorHistory: false }, { keep: 40, memoryMiB: 2, history: true, bodiesPerSecond: 20 }).history).toBe(false);
    expect(inspectorOptions({ color: false }, { keep: 40, memoryMiB: 2, history: true, bodiesPerSecond: 20 }).history).toBe(true);
    expect(inspectorOptions({ color: false, inspectorHistory: true }).history).toBe(true);
  });
});

describe("serve's verbosity: a repeatable -v", () => {
  const flagsOf = async (args: string[]) => {
    const io = { stdout: { write: () => true }, stderr: { write: () => true }, env: {}, cwd: '.', stopSignal: () => new Promise<string>(() => undefined) };
    const program = createProgram(io);
    let seen: ServeFlags | undefined;
    program.commands.find((c) => c.name() === 'serve')!.action((flags: ServeFlags) => {
      seen = flags;
    });
    await program.parseAsync(['serve', ...args], { from: 'user' });
    return seen?.verbose;
  };

  it.each([
    [[], 0],
    [['--verbose'], 1],
    [['-v'], 1],
    [['-vv'], 2],
    [['-v', '--verbose'], 2],
    [['-vvv'], 3],
    [['-vv', '--port', '0'], 2],
  ])('%j → %i', async (args, level) => {
    expect(await flagsOf(args)).toBe(level);
  });

  it('-v before the command is still the version', async () => {
    let out = '';
    const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: () => true }, env: {}, cwd: '.', stopSignal: () => new Promise<string>(() => undefined) };
    await expect(createProgram(io).parseAsync(['-v'], { from: 'user' })).rejects.toThrow();
    expect(out.trim()).toBe(VERSION);
  });
});
