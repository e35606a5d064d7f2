/**
 * The background gateway's files, read as hostile: a state file that is not JSON, too large, or
 * names no live gateway counts as absent (and a stale one is removed); launchers that are gone are
 * forgotten; the files are the user's alone.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { attach, detach, runningBackground } from './background.js';
import { backgroundFiles, type BackgroundFiles, clearState, readState, writeKey, writeState } from './background-files.js';

let dir: string;
let files: BackgroundFiles;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mgw-background-'));
  files = backgroundFiles(dir);
  mkdirSync(files.dir, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A pid no process has: far above the kernel's usual limit. */
const GONE = 2 ** 22 + 12_345;

describe('the state file', () => {
  it.each([
    ['not JSON', 'pid=1'],
    ['an array', '[1]'],
    ['no pid', JSON.stringify({ url: 'http://127.0.0.1:1' })],
    ['a pid that is not a whole number', JSON.stringify({ pid: 1.5, url: 'http://127.0.0.1:1' })],
    ['a URL of another scheme', JSON.stringify({ pid: 42, url: 'file:///etc/passwd' })],
    ['too large', JSON.stringify({ pid: 42, url: 'http://127.0.0.1:1', pad: 'x'.repeat(64 * 1024) })],
  ])('%s counts as absent', (_name, text) => {
    writeFileSync(files.state, text);
    expect(readState(files)).toBeUndefined();
  });

  it('is written for the user alone, and read back; an inspector link of another scheme is left out', () => {
    writeState(files.state, { pid: 42, url: 'http://127.0.0.1:9', inspectorUrl: 'javascript:alert(1)' });
    expect(statSync(files.state).mode & 0o777).toBe(0o600);
    expect(readState(files)).toEqual({ pid: 42, url: 'http://127.0.0.1:9', inspectorUrl: undefined });
  });

  it('naming a process that is gone is stale: removed, and no gateway runs', async () => {
    writeState(files.state, { pid: GONE, url: 'http://127.0.0.1:9' });
    expect(await runningBackground(files)).toBeUndefined();
    expect(existsSync(files.state)).toBe(false);
  });

  it('is cleared only by the gateway it names', () => {
    writeState(files.state, { pid: 42, url: 'http://127.0.0.1:9' });
    clearState(files.state, 43);
    expect(existsSync(files.state)).toBe(true);
    clearState(files.state, 42);
    expect(existsSync(files.state)).toBe(false);
  });

  it('the kept key is the user’s alone', () => {
    writeKey(files, 'mgw-key');
    expect(statSync(files.key).mode & 0o777).toBe(0o600);
  });
});

describe('launchers', () => {
  it('detach forgets this one and those that are gone, and counts the live ones', () => {
    attach(files, process.pid);
    attach(files, GONE);
    attach(files, process.ppid);
    writeFileSync(join(files.launchers, 'not-a-pid'), '');
    expect(detach(files, process.pid)).toEqual([process.ppid]);
    expect(existsSync(join(files.launchers, String(GONE)))).toBe(false);
    expect(existsSync(join(files.launchers, 'not-a-pid'))).toBe(false);
  });
});
