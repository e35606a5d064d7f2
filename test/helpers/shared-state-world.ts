/**
 * What the suites of several gateways sharing state through Redis each need around their tests: a fake
 * upstream and a redis-server started once per file (when `redis-server` is installed), in-process gateways
 * closed after each test, gateway processes killed and scratch folders removed when the file ends.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { HAS_REDIS, startRedis, type TestRedis } from './redis-server.js';
import type { TestGateway } from './start-gateway.js';

export interface SharedStateWorld {
  /** Started before the file's first test. */
  readonly upstream: FakeUpstream;
  readonly redis: TestRedis;
  /** Gateway processes (`spawnGateway`'s list), killed when the file ends. */
  readonly children: ChildProcess[];
  /** In-process gateways, closed after each test. */
  readonly running: TestGateway[];
  /** A fresh scratch folder, removed when the file ends. */
  scratchDir(prefix: string): string;
}

/** Registers the file's hooks; call it once at the top level of a test file. */
export function sharedStateWorld(): SharedStateWorld {
  let upstream: FakeUpstream | undefined;
  let redis: TestRedis | undefined;
  const children: ChildProcess[] = [];
  const running: TestGateway[] = [];
  const dirs: string[] = [];
  beforeAll(async () => {
    if (!HAS_REDIS) return;
    upstream = await startFakeUpstream();
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await upstream?.close();
    await redis?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((g) => g.close()));
    upstream?.reset();
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is started before the file's first test`);
    return value;
  };
  return {
    get upstream() {
      return started(upstream, 'the fake upstream');
    },
    get redis() {
      return started(redis, 'redis-server');
    },
    children,
    running,
    scratchDir(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
  };
}
